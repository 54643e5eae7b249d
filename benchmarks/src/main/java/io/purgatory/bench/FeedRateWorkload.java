package io.purgatory.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Workload 12, the feed's rate ({@code feed-rate} command, {@link FeedRateCommand}): two instances
 * of a service, each with its keyed waits and its {@link KafkaFeed} on a real local broker, and
 * one producer publishing events at a fixed rate; event i answers a wait registered beforehand on
 * instance {@code i % 2} (the other instance's feed reads it too and keeps it as an early event).
 * Per rate: the events answered per second, and the time from just before {@code send()} to the
 * wait's answer, p50 and p99, split by timestamps ({@link FeedStamps}) into where it goes: send to
 * the producer's ack; send to the broker's append (its LogAppendTime, 1 ms resolution); the append
 * to {@code poll()} returning on the waiter's instance (the fetch wait; a consumer interceptor,
 * {@link PollStamps}, stamps the return); the poll's return to the record's hand-off to the waits;
 * the hand-off to the answer (complete(), the future and its dependent stage); and the producer's
 * own record-queue time (linger) and request latency. The Kafka column is the same stream read by
 * two plain consumers (assign, poll, nothing else), from send to poll's return on the "waiter's"
 * consumer: what Kafka alone costs on the machine at that moment. Rounds alternate the two, each
 * over every rate.
 */
final class FeedRateWorkload extends Workload implements AutoCloseable {

    static final String TITLE = "12 feed rate (2 instances, local broker)";
    static final String FEED_TOPIC = "feed-rate";
    static final String PLAIN_TOPIC = "plain-rate";
    private static final Duration WAIT_TIMEOUT = Duration.ofMinutes(10);
    private static final long CATCH_UP_SECONDS = 60;

    private final String servers;
    private final List<Integer> rates;
    private final int seconds;
    private final int warmUpSeconds;
    private final int lingerMs;
    private final int pending;
    private final List<Instance> instances = new ArrayList<>();
    private final Map<String, Metric> metrics = new HashMap<>();
    private volatile FeedStamps current;
    private int steps;

    /**
     * Over the broker at {@code servers} (both topics created, with LogAppendTime): {@code rates}
     * events/s, {@code seconds} each ({@code warmUpSeconds} in the warm-up, 0: none), a producer
     * lingering {@code lingerMs}, {@code pending} other waits on each instance that get no event.
     */
    FeedRateWorkload(String servers, List<Integer> rates, int seconds, int warmUpSeconds, int lingerMs, int pending) {
        super("feed-rate", TITLE, List.of(Impl.OURS, Impl.KAFKA));
        this.servers = servers;
        this.rates = List.copyOf(rates);
        this.seconds = seconds;
        this.warmUpSeconds = warmUpSeconds;
        this.lingerMs = lingerMs;
        this.pending = pending;
    }

    /** One instance of the service: its keyed waits and its feed, for the whole run. */
    private record Instance(KeyedWaits<String, String> waits, KafkaFeed<String, String> feed, String clientId,
                            List<CompletableFuture<String>> idle) {
    }

    /** Starts both instances' feeds, their other waits pending, and waits until they read the topic's end. */
    void start(PrintStream log) {
        for (int n = 0; n < FeedStamps.INSTANCES; n++) {
            int instance = n;
            KeyedWaits<String, String> waits = KeyedWaits.builder("rate-" + n)
                    .retainEvents(Duration.ofSeconds(30), 100_000).build();
            String clientId = "feed-rate-" + n;
            PollStamps.register(clientId, (record, now) -> {
                FeedStamps s = current;
                if (s != null) {
                    s.polled(instance, record, now);
                }
            });
            KafkaFeed<String, String> feed = KafkaFeed.builder(waits, FEED_TOPIC).bootstrapServers(servers)
                    .name("rate-" + n)
                    .consumerProperty(ConsumerConfig.CLIENT_ID_CONFIG, clientId)
                    .consumerProperty(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, PollStamps.class.getName())
                    .key(record -> {
                        FeedStamps s = current;
                        return s != null ? s.handed(instance, record)
                                : record.key() == null ? null : new String(record.key(), UTF_8);
                    })
                    .value(record -> new String(record.value(), UTF_8))
                    .readBack(Duration.ZERO).closeWaits(true).build().start();
            List<CompletableFuture<String>> idle = new ArrayList<>();
            for (int i = 0; i < pending; i++) {
                idle.add(waits.await("idle-" + n + "-" + i, WAIT_TIMEOUT));
            }
            instances.add(new Instance(waits, feed, clientId, idle));
        }
        awaitCaughtUp();
        log.printf("  two feeds on %s ready, %,d other waits pending on each%n", FEED_TOPIC, pending);
    }

    @Override
    public void close() {
        for (Instance instance : instances) {
            PollStamps.unregister(instance.clientId());
            instance.feed().close(); // closes the waits too
        }
        instances.clear();
    }

    /** A warm-up of each at every rate ({@code warmUpSeconds} a step, if any), then the rounds. */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        if (warmUpSeconds > 0) {
            for (Impl impl : impls().stream().filter(options::runs).toList()) {
                for (int rate : rates) {
                    log.printf("  warm-up %s at %,d events/s%n", impl.id(), rate);
                    step(impl, rate, warmUpSeconds, Results.Recorder.DISCARD, log);
                }
            }
        }
        runRounds(sizes, options, results, log);
        results.note("Workload 12: the Kafka column is two plain KafkaConsumers (assign, poll, no waits) reading the"
                + " same stream, from send() to poll()'s return on the consumer of the event's \"waiter\" instance:"
                + " what Kafka alone costs. Ratios are the feed over it (medians of the per-round ratios). Stages"
                + " marked (1 ms) use the broker's LogAppendTime, in ms of the wall clock; the others System.nanoTime()"
                + " in this JVM, where the producer, both feeds and their waits run. Producer: acks=all, linger.ms="
                + lingerMs + ", a new producer per step.");
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) throws Exception {
        for (int rate : rates) {
            step(impl, rate, seconds, recorder, log);
        }
    }

    private void step(Impl impl, int rate, int stepSeconds, Results.Recorder recorder, PrintStream log)
            throws Exception {
        int n = Math.max(FeedStamps.INSTANCES, rate * stepSeconds);
        FeedStamps s = new FeedStamps(++steps, n);
        Map<String, Double> producerMetrics = impl == Impl.OURS ? feedStep(s, rate) : plainStep(s, rate);
        long[] done = impl == Impl.OURS ? s.answeredAt : s.atWaiter(s.polledAt);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int missing = 0;
        for (int i = 0; i < n; i++) {
            first = Math.min(first, s.sentAt[i]);
            if (done[i] == 0) {
                missing++;
            } else {
                last = Math.max(last, done[i]);
            }
        }
        double eventsPerSecond = (n - missing) * 1e9 / (last - first);
        String at = String.format(Locale.ROOT, "%,d/s: ", rate);
        long[] total = FeedStamps.stage(s.sentAt, done);
        long[] ack = FeedStamps.stage(s.sentAt, s.ackedAt);
        long[] appended = s.appendedAt();
        long[] toAppend = FeedStamps.stage(s.sentAt, appended);
        long[] polled = s.atWaiter(s.polledAt);
        long[] fetch = FeedStamps.stage(appended, polled);
        recorder.record(metric(at + "events/s answered (the feed) or polled (plain consumers)"), eventsPerSecond);
        quantiles(recorder, at + "publish to answer", total);
        quantiles(recorder, at + "send to ack", ack);
        quantiles(recorder, at + "send to broker append (1 ms)", toAppend);
        quantiles(recorder, at + "append to poll's return (1 ms)", fetch);
        if (impl == Impl.OURS) {
            long[] handed = s.atWaiter(s.handedAt);
            quantiles(recorder, at + "poll's return to hand-off", FeedStamps.stage(polled, handed));
            quantiles(recorder, at + "hand-off to answer", FeedStamps.stage(handed, s.answeredAt));
        }
        producerMetrics.forEach((name, value) -> recorder.record(metric(at + "producer " + name + " (ms)"), value));
        log.printf(Locale.ROOT, "    %s @ %,d events/s: %,d events in %d s, %,.0f/s answered%s; publish to %s p50 %.2f"
                        + " p99 %.2f max %.2f ms; send to ack p50 %.2f p99 %.2f; append to poll p50 %.2f p99 %.2f;"
                        + " producer %s%n", impl == Impl.OURS ? "feed" : "plain consumers", rate, n, stepSeconds,
                eventsPerSecond, missing == 0 ? "" : String.format(Locale.ROOT, " (%,d NOT answered)", missing),
                impl == Impl.OURS ? "answer" : "poll", ms(total, 0.5), ms(total, 0.99),
                total.length == 0 ? Double.NaN : total[total.length - 1] / 1e6, ms(ack, 0.5), ms(ack, 0.99),
                ms(fetch, 0.5), ms(fetch, 0.99), producerMetrics);
        if (missing > 0) {
            throw new IllegalStateException(missing + " of " + n + " events were not answered at " + rate + "/s");
        }
    }

    /** The feed: waits registered on their instances, events sent, every wait answered. */
    private Map<String, Double> feedStep(FeedStamps s, int rate) throws Exception {
        List<CompletableFuture<Void>> answers = new ArrayList<>(s.events);
        for (int i = 0; i < s.events; i++) {
            int event = i;
            answers.add(instances.get(FeedStamps.waiter(i)).waits().await(s.key(i), WAIT_TIMEOUT)
                    .thenRun(() -> s.answeredAt[event] = System.nanoTime()));
        }
        current = s;
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>(FEED_TOPIC, "warm-up", "x")).get(30, TimeUnit.SECONDS);
            awaitCaughtUp();
            send(producer, FEED_TOPIC, s, rate);
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(CATCH_UP_SECONDS);
            for (CompletableFuture<Void> answer : answers) {
                answer.get(Math.max(1, giveUp - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            return producerMetrics(producer);
        } finally {
            current = null;
        }
    }

    /** The baseline: two plain consumers read the plain topic; an event is done when its "waiter" polled it. */
    private Map<String, Double> plainStep(FeedStamps s, int rate) throws Exception {
        CountDownLatch positioned = new CountDownLatch(FeedStamps.INSTANCES);
        CountDownLatch polled = new CountDownLatch(s.events);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> readers = new ArrayList<>();
        for (int n = 0; n < FeedStamps.INSTANCES; n++) {
            int instance = n;
            readers.add(Threads.start("plain-consumer-" + n, () -> {
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                        ConsumerConfig.CLIENT_ID_CONFIG, "plain-rate-" + instance,
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
                    List<TopicPartition> partitions = consumer.partitionsFor(PLAIN_TOPIC).stream()
                            .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
                    consumer.assign(partitions);
                    consumer.seekToEnd(partitions);
                    partitions.forEach(consumer::position);
                    positioned.countDown();
                    while (!stop.get()) {
                        var records = consumer.poll(Duration.ofMillis(100));
                        long now = System.nanoTime();
                        for (ConsumerRecord<byte[], byte[]> record : records) {
                            s.polled(instance, record, now);
                            int i = s.index(record.key());
                            if (i >= 0 && FeedStamps.waiter(i) == instance) {
                                polled.countDown();
                            }
                        }
                    }
                }
            }));
        }
        try (KafkaProducer<String, String> producer = producer()) {
            if (!positioned.await(CATCH_UP_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the plain consumers were not positioned within " + CATCH_UP_SECONDS
                        + " s");
            }
            send(producer, PLAIN_TOPIC, s, rate);
            if (!polled.await(CATCH_UP_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(polled.getCount() + " events not polled " + CATCH_UP_SECONDS
                        + " s after the last send");
            }
            return producerMetrics(producer);
        } finally {
            stop.set(true);
            Threads.joinAll(readers.toArray(Thread[]::new));
        }
    }

    /** Sends the step's events at {@code rate}, each stamped before its send and at its ack; then flushes. */
    @SuppressWarnings("FutureReturnValueIgnored") // each send's ack is its callback's stamp; flush() waits for all
    private static void send(KafkaProducer<String, String> producer, String topic, FeedStamps s, int rate) {
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        for (int i = 0; i < s.events; i++) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            next += interval;
            int event = i;
            s.sentAt[i] = System.nanoTime();
            producer.send(new ProducerRecord<>(topic, s.key(i), "{\"amountCents\":" + i + "}"), (metadata, error) -> {
                if (error == null) {
                    s.ackedAt[event] = System.nanoTime();
                }
            });
        }
        producer.flush();
    }

    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, lingerMs,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }

    /** The producer's own figures of the step, in ms: its record-queue time (linger) and request latency. */
    private static Map<String, Double> producerMetrics(KafkaProducer<String, String> producer) {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String name : List.of("record-queue-time-avg", "record-queue-time-max", "request-latency-avg")) {
            for (Map.Entry<MetricName, ? extends org.apache.kafka.common.Metric> e : producer.metrics().entrySet()) {
                if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")
                        && e.getValue().metricValue() instanceof Double value) {
                    figures.put(name, value);
                }
            }
        }
        return figures;
    }

    /** Waits until both feeds are ready and not lagging. */
    private void awaitCaughtUp() {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(CATCH_UP_SECONDS);
        for (Instance instance : instances) {
            while (!instance.feed().isReady() || instance.feed().isLagging()) {
                if (System.nanoTime() - giveUp > 0) {
                    throw new IllegalStateException("feed " + instance.clientId() + " not caught up within "
                            + CATCH_UP_SECONDS + " s: " + instance.feed().state());
                }
                Threads.sleepMillis(10);
            }
        }
    }

    private void quantiles(Results.Recorder recorder, String what, long[] sortedNanos) {
        recorder.record(metric(what + " p50 (ms)"), ms(sortedNanos, 0.5));
        recorder.record(metric(what + " p99 (ms)"), ms(sortedNanos, 0.99));
    }

    private static double ms(long[] sortedNanos, double p) {
        return sortedNanos.length == 0 ? Double.NaN : Probe.percentile(sortedNanos, p) / 1e6;
    }

    private Metric metric(String name) {
        return metrics.computeIfAbsent(name, k -> new Metric(TITLE, k));
    }
}
