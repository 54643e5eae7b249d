package io.purgatory.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.testbroker.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
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
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka feed against a real single-node broker (a child JVM on loopback):
 * <ol>
 *   <li>throughput: events per second one feed hands to keyed waits holding {@code --pending}
 *       waits, reading a topic of {@code --events} records written beforehand (one record in ten
 *       answers a wait, the rest find no waiter and are kept as early events);</li>
 *   <li>latency: with the feed caught up and the waits still pending, events produced one at a
 *       time at {@code --rate} per second, each for a waiting key; the time from just before
 *       {@code send()} to the wait's completion, on one clock (producer and waits share a JVM).</li>
 * </ol>
 * {@code java -jar benchmarks.jar feed [--events 1000000] [--pending 100000] [--rate 500] [--seconds 10]}
 */
final class FeedBench {

    private FeedBench() {
    }

    static int run(String[] args) throws Exception {
        int events = 1_000_000;
        int pending = 100_000;
        int rate = 500;
        int seconds = 10;
        for (int i = 0; i + 1 < args.length; i += 2) {
            int value = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--events" -> events = value;
                case "--pending" -> pending = value;
                case "--rate" -> rate = value;
                case "--seconds" -> seconds = value;
                default -> throw new IllegalArgumentException("unknown option: " + args[i]);
            }
        }
        System.out.println(MachineInfo.describe());
        try (KafkaBroker broker = KafkaBroker.builder()
                .jvmOptions(List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC")).start()) {
            broker.createTopic("bench", 3);
            throughput(broker.bootstrapServers(), events, pending);
            broker.createTopic("latency", 3);
            latency(broker.bootstrapServers(), pending, rate, seconds);
            broker.createTopic("plain", 3);
            plainConsumerLatency(broker.bootstrapServers(), rate, seconds);
            System.out.println("load average after: " + MachineInfo.loadAverage());
        }
        return 0;
    }

    private static void throughput(String servers, int events, int pending) throws Exception {
        try (KafkaProducer<String, String> producer = producer(servers, 5)) {
            List<Future<RecordMetadata>> last = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                String key = i % 10 == 0 ? "wait-" + (i / 10) % pending : "order-" + i;
                Future<RecordMetadata> ack = producer.send(new ProducerRecord<>("bench", key,
                        "{\"amountCents\":" + i + ",\"currency\":\"EUR\"}"));
                if (i >= events - 100) {
                    last.add(ack);
                }
            }
            for (Future<RecordMetadata> ack : last) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
        KeyedWaits<String, String> waits = KeyedWaits.builder("throughput")
                .retainEvents(Duration.ofMinutes(10), 100_000).build();
        List<CompletableFuture<String>> futures = new ArrayList<>(pending * 2);
        for (int i = 0; i < pending * 2; i++) {
            futures.add(waits.await(i < pending ? "wait-" + i : "never-" + i, Duration.ofMinutes(10)));
        }
        long start = System.nanoTime();
        try (KafkaFeed<String, String> feed = feed(waits, servers, "bench")) {
            while (feed.stats().eventsRead() < events) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            long nanos = System.nanoTime() - start;
            System.out.printf("throughput: %,d events in %.2f s = %,.0f events/s into keyed waits with %,d to %,d"
                            + " pending; waits answered %,d, events with no waiter %,d, mapping errors %d%n",
                    events, nanos / 1e9, events * 1e9 / nanos, pending * 2, waits.pending(),
                    feed.stats().waitsAnswered(), feed.stats().eventsNoWaiter(), feed.stats().mappingErrors());
            System.out.printf("  waits answered before the close: %,d of %,d%n",
                    futures.stream().filter(CompletableFuture::isDone).count(), futures.size());
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // each send is measured by its wait's answer, not its ack
    private static void latency(String servers, int pending, int rate, int seconds) throws Exception {
        KeyedWaits<String, String> waits = KeyedWaits.builder("latency")
                .retainEvents(Duration.ofSeconds(30), 100_000).build();
        int samples = rate * seconds;
        List<CompletableFuture<String>> idle = new ArrayList<>();
        for (int i = 0; i < pending; i++) {
            idle.add(waits.await("idle-" + i, Duration.ofMinutes(10)));
        }
        long[] sentAt = new long[samples];
        long[] answeredAt = new long[samples];
        List<CompletableFuture<String>> measured = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            int sample = i;
            measured.add(waits.await("order-" + i, Duration.ofMinutes(5))
                    .whenComplete((value, error) -> answeredAt[sample] = System.nanoTime()));
        }
        try (KafkaFeed<String, String> feed = feed(waits, servers, "latency");
             KafkaProducer<String, String> producer = producer(servers, 0)) {
            producer.send(new ProducerRecord<>("latency", "warm-up", "x")).get(); // metadata, connections
            while (feed.stats().eventsRead() < 1 || feed.isLagging()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
            long next = System.nanoTime();
            for (int i = 0; i < samples; i++) {
                while (System.nanoTime() - next < 0) {
                    LockSupport.parkNanos(next - System.nanoTime());
                }
                next += intervalNanos;
                sentAt[i] = System.nanoTime();
                producer.send(new ProducerRecord<>("latency", "order-" + i, "{\"amountCents\":" + i + "}"));
            }
            for (CompletableFuture<String> wait : measured) {
                wait.get(5, TimeUnit.MINUTES);
            }
            report("the feed into keyed waits", rate, samples, sentAt, answeredAt, waits.pending());
        }
        waits.close();
        idle.forEach(f -> f.cancel(false));
    }

    /** The baseline: the same stream read by a plain consumer (assign, poll), no waits; produce to poll(). */
    @SuppressWarnings("FutureReturnValueIgnored") // as in latency()
    private static void plainConsumerLatency(String servers, int rate, int seconds) throws Exception {
        int samples = rate * seconds;
        long[] sentAt = new long[samples];
        long[] receivedAt = new long[samples];
        CountDownLatch all = new CountDownLatch(samples);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch positioned = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
                List<TopicPartition> partitions = consumer.partitionsFor("plain").stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                partitions.forEach(consumer::position);
                positioned.countDown();
                while (!stop.get()) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                        receivedAt[Integer.parseInt(record.key())] = System.nanoTime();
                        all.countDown();
                    }
                }
            }
        }, "plain-consumer");
        reader.start();
        positioned.await();
        try (KafkaProducer<String, String> producer = producer(servers, 0)) {
            long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
            long next = System.nanoTime();
            for (int i = 0; i < samples; i++) {
                while (System.nanoTime() - next < 0) {
                    LockSupport.parkNanos(next - System.nanoTime());
                }
                next += intervalNanos;
                sentAt[i] = System.nanoTime();
                producer.send(new ProducerRecord<>("plain", Integer.toString(i), "{\"amountCents\":" + i + "}"));
            }
            all.await(5, TimeUnit.MINUTES);
        }
        stop.set(true);
        reader.join();
        report("baseline, a plain consumer (no waits)", rate, samples, sentAt, receivedAt, -1);
    }

    private static void report(String what, int rate, int samples, long[] sentAt, long[] doneAt, int pending) {
        long[] micros = new long[samples];
        for (int i = 0; i < samples; i++) {
            micros[i] = (doneAt[i] - sentAt[i]) / 1_000;
        }
        Arrays.sort(micros);
        System.out.printf("latency, %s: %,d events at %d/s, produce (acks=all, linger 0) to the answer%s:"
                        + " p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", what, samples, rate,
                pending < 0 ? "" : ", " + String.format("%,d", pending) + " other waits pending",
                micros[samples / 2] / 1e3, micros[samples * 9 / 10] / 1e3, micros[samples * 99 / 100] / 1e3,
                micros[samples - 1] / 1e3);
    }

    private static KafkaFeed<String, String> feed(KeyedWaits<String, String> waits, String servers, String topic) {
        return KafkaFeed.builder(waits, topic).bootstrapServers(servers)
                .key(record -> new String(record.key(), UTF_8))
                .value(record -> new String(record.value(), UTF_8))
                .readBack(Duration.ofHours(1)).closeWaits(true).build().start();
    }

    private static KafkaProducer<String, String> producer(String servers, int lingerMs) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, lingerMs,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }
}
