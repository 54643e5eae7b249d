package io.purgatory.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.KeyedWaits;
import io.purgatory.timer.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Feeds {@link KeyedWaits} from a Kafka topic, so that a wait parked on one instance of a service
 * is answered by an event that reached any instance. Each instance runs its own feed: it reads
 * every partition of the topic (no consumer group: every instance sees every event), maps each
 * record to a key and a value with the functions you give, and calls
 * {@link KeyedWaits#complete(Object, Object) complete(key, value)}.
 *
 * <pre>{@code
 * KeyedWaits<String, String> payments = KeyedWaits.builder("payments")
 *         .retainEvents(Duration.ofSeconds(30), 100_000)      // the window the feed reads back on start
 *         .build();
 * KafkaFeed<String, String> feed = KafkaFeed.builder(payments, "payments")
 *         .bootstrapServers("broker:9092")
 *         .key(record -> new String(record.key(), UTF_8))
 *         .value(record -> new String(record.value(), UTF_8))
 *         .closeWaits(true)                                     // close() stops the feed, then closes the waits
 *         .build()
 *         .start();
 * }</pre>
 *
 * <p><b>No event lost to a race.</b> On start the feed reads each partition from the first record
 * whose timestamp is within the waits' early-event window ({@link KeyedWaits#retentionWindow()}),
 * so an event published just before this instance started, or just before its wait, still
 * answers a wait registered within the window. Afterwards it reads every record once, in order per
 * partition, and resumes where it was after a broker restart or an error. Partitions added to the
 * topic are found at the feed's next check of the broker (every second) and read from their start.
 *
 * <p><b>Says when it is deaf.</b> {@link #isReady()} holds only while every partition is read
 * (every partition the broker told at its last check: the feed checks every second), the read-back
 * is done and the broker answers; {@link #state()} says why not (topic missing, a partition not
 * read yet, broker unreachable...). It turns within 3.5 s of the broker's last answer:
 * {@link #MAX_SILENCE}, plus at most one poll (0.5 s) before the feed takes an answer.
 *
 * <p><b>Errors never stop it.</b> Whatever a mapping function or {@code complete} throws (an
 * {@code Error} too) costs its record only (counted, logged at most every 10 s); a broker that is
 * down is retried. Records are read as bytes and mapped by your functions, so a record that cannot
 * be decoded is a counted mapping error, never a poison pill.
 *
 * <p><b>Traces across instances.</b> Publish with {@link KafkaTracing#send} (or
 * {@link KafkaTracing#inject}) and build the feed with {@link Builder#tracing}: each record is
 * handed over inside a span of the publisher's trace, current while the waits it answers end
 * (Micrometer Tracing, needed only then).
 *
 * <p><b>Shutdown order.</b> Close the feed before the waits. With {@link Builder#closeWaits
 * closeWaits(true)} its {@link #close()} does both, in that order. Closing the waits first is
 * harmless: the feed stops at the next record, and a closed wait is never completed.
 *
 * <p><b>Threads and clients.</b> One thread per feed, named {@code kafka-feed-<name>}, a daemon,
 * with a consumer and an admin client (its checks and lookups). The waits' futures complete on the
 * feed's thread, and so do their dependent stages without {@code Async}: keep those short, or they
 * slow the feed. The methods of this class are thread-safe. Actions in a thread prior to
 * {@code start()} happen-before the actions of the feed's thread, which happen-before the return
 * of {@code close()} (it joins the thread, unless the thread outlives its 30 s bound).
 *
 * @param <K> the key type of the waits
 * @param <V> the event value type of the waits
 */
public final class KafkaFeed<K, V> implements AutoCloseable {

    /**
     * The longest the broker may leave the feed's checks unanswered, or the feed's thread show no
     * progress, before the feed is not {@link #isReady() ready} (3 s). The feed checks every second.
     */
    public static final Duration MAX_SILENCE = Duration.ofSeconds(3);

    private final FeedConfig<K, V> config;
    private final FeedCounters counters = new FeedCounters();
    private final FeedHealth health = new FeedHealth();
    private final long lagThresholdNanos;
    private final Object lifecycle = new Object();
    @GuardedBy("lifecycle")
    private FeedLoop<K, V> loop;
    @GuardedBy("lifecycle")
    private Thread thread;
    @GuardedBy("lifecycle")
    private boolean closed;

    private KafkaFeed(FeedConfig<K, V> config) {
        this.config = config;
        this.lagThresholdNanos = config.lagThreshold().toNanos();
    }

    /**
     * Starts a builder of a feed of {@code waits} from {@code topic}. The key and value types are
     * those of the waits.
     *
     * @throws NullPointerException if {@code waits} or {@code topic} is null
     * @throws IllegalArgumentException if {@code topic} is blank
     */
    public static <K, V> Builder<K, V> builder(KeyedWaits<K, V> waits, String topic) {
        return new Builder<>(waits, topic);
    }

    /**
     * Creates the consumer and the admin client and starts the feed's thread. Returns this feed.
     *
     * @throws IllegalStateException if the feed was started or closed, or its waits are closed
     * @throws org.apache.kafka.common.KafkaException if the clients' configuration is refused
     */
    public KafkaFeed<K, V> start() {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("feed '" + name() + "' is closed");
            }
            if (thread != null) {
                throw new IllegalStateException("feed '" + name() + "' is started already");
            }
            if (config.waits().isClosed()) {
                throw new IllegalStateException("the keyed waits '" + config.waits().name() + "' are closed");
            }
            FeedEnvironment env = config.env();
            Map<String, Object> consumerConfig = config.consumerConfig();
            Consumer<byte[], byte[]> consumer = env.consumerFactory().apply(consumerConfig);
            TopicAdmin admin;
            try {
                admin = env.adminFactory().apply(consumerConfig, env.apiTimeout());
            } catch (RuntimeException e) {
                try {
                    KafkaClients.closeNow(consumer);
                } catch (Throwable closeFailed) { // a consumer interceptor's close is user code
                    e.addSuppressed(closeFailed);
                }
                throw e;
            }
            health.started(env.clock().nanoTime());
            loop = new FeedLoop<>(config, consumer, admin, counters, health);
            thread = new Thread(loop, "kafka-feed-" + name());
            thread.setDaemon(true);
            thread.start();
        }
        return this;
    }

    /** A snapshot of the feed's numbers: events by outcome, errors, lag, health. */
    public FeedStats stats() {
        long now = config.env().clock().nanoTime();
        FeedState state = health.state(now);
        return new FeedStats(counters.readCount(), counters.completedCount(), counters.noWaiterCount(),
                counters.skippedCount(), counters.mappingErrorCount(), counters.completeErrorCount(),
                counters.waitsAnsweredCount(), counters.consumerErrorCount(), health.partitionCount(),
                health.lagRecords(now), health.maxPartitionLagRecords(now), health.lagging(now, lagThresholdNanos),
                state, state != FeedState.NEW && state != FeedState.STOPPED);
    }

    /**
     * The readiness signal, for a health check: true only while every partition of the topic is
     * read (as the broker told them at its last check, every second), the window is read back, and
     * the broker answers the feed's checks. False while the topic is missing, from the check that
     * finds a partition added to the topic until the feed reads it, while the broker has answered
     * no check for {@link #MAX_SILENCE} (down, unreachable; the feed takes an answer at most one
     * poll, 0.5 s, after it came), while the feed's thread is blocked for as long, before start
     * and after close.
     * {@link #state()} says why. A ready feed may still be behind: see {@link #isLagging()}.
     */
    public boolean isReady() {
        return state() == FeedState.READY;
    }

    /** Where the feed stands: {@link FeedState#READY}, or the reason it is not. */
    public FeedState state() {
        return health.state(config.env().clock().nanoTime());
    }

    /**
     * The lag signal: true while the feed has not reached, within the lag threshold, the end of
     * the topic as it was when it last saw a lag (on start: until it has read back); while one
     * batch of records has taken longer than the threshold (a mapping function or a dependent
     * stage blocks the feed's thread); and while the broker does not answer
     * ({@link FeedState#UNREACHABLE}, {@link FeedState#STALLED}). A lagging feed answers waits late.
     */
    public boolean isLagging() {
        return health.lagging(config.env().clock().nanoTime(), lagThresholdNanos);
    }

    /** The feed's name: its thread's and its meters' (by default the waits' name). */
    public String name() {
        return config.name();
    }

    /** The topic the feed reads. */
    public String topic() {
        return config.topic();
    }

    /**
     * Stops the feed: wakes its thread and waits for it to end (at most 30 s; a dependent stage
     * that blocks the thread longer is left behind), then, if built with {@code closeWaits(true)},
     * closes the waits. Idempotent; a feed never started closes at once.
     */
    @Override
    public void close() {
        Thread running;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            running = thread;
            if (loop != null) {
                loop.stop();
            }
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (running.isAlive()) {
                FeedLoop.LOG.warn("Feed '{}': its thread did not end within 30 s (a dependent stage blocks it?)",
                        name());
            }
        }
        health.stopped();
        if (config.closeWaits()) {
            config.waits().close();
        }
    }

    FeedCounters counters() {
        return counters;
    }

    FeedHealth health() {
        return health;
    }

    long clockNanos() {
        return config.env().clock().nanoTime();
    }

    FeedConfig<K, V> config() {
        return config;
    }

    /**
     * Builds a {@link KafkaFeed}: {@link #bootstrapServers} (or the consumer property),
     * {@link #key} and {@link #value} are required. Each setting is checked when it is given. Not
     * thread-safe; {@link #build()} takes a snapshot, so later changes reach no feed built before.
     *
     * @param <K> the key type of the waits
     * @param <V> the event value type of the waits
     */
    public static final class Builder<K, V> {
        private final KeyedWaits<K, V> waits;
        private final String topic;
        private final Map<String, Object> consumerProperties = new HashMap<>();
        private Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> keyOf;
        private Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> valueOf;
        private String name;
        private Duration readBack;
        private Duration lagThreshold = Duration.ofSeconds(10);
        private boolean closeWaits;
        private BrokerChecks.TopicSpec createTopic;
        private KafkaTracing tracing;
        // the environment (FeedEnvironment.real()'s parts), replaced by tests
        private Clock clock = Clock.system();
        private LongSupplier wallClockMs = System::currentTimeMillis;
        private Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory = KafkaConsumer::new;
        private BiFunction<Map<String, Object>, Duration, TopicAdmin> adminFactory = KafkaTopicAdmin::create;
        private Duration pollTimeout = Duration.ofMillis(500);
        private Duration apiTimeout = Duration.ofSeconds(5);
        private Duration retryBackoff = Duration.ofSeconds(1);

        Builder(KeyedWaits<K, V> waits, String topic) {
            this.waits = Objects.requireNonNull(waits, "waits");
            this.topic = FeedConfig.checkTopic(topic);
            this.readBack = waits.retentionWindow();
        }

        /**
         * The brokers to bootstrap from: the consumer's {@code bootstrap.servers}.
         *
         * @throws IllegalArgumentException if {@code servers} is blank
         */
        public Builder<K, V> bootstrapServers(String servers) {
            String checked = FeedConfig.checkNotBlank("bootstrapServers", servers);
            return consumerProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, checked);
        }

        /**
         * A property of the feed's consumer (security, fetch sizes, {@code client.id}...). The feed
         * sets some itself, and refuses them here: no {@code group.id}, no auto commit,
         * {@code auto.offset.reset=none}, byte-array deserializers, no auto-created topics. By
         * default it reads {@code read_committed}.
         *
         * @throws IllegalArgumentException for {@code group.id} (the feed reads every partition
         *         itself) or another property the feed sets itself, or a value the consumer would
         *         refuse (the message names the property and the value)
         */
        public Builder<K, V> consumerProperty(String key, Object value) {
            FeedConfig.checkConsumerProperty(key, value);
            consumerProperties.put(key, value);
            return this;
        }

        /**
         * The key of a record's event; null means the record is no event for these waits (counted as
         * skipped). It may throw for a record it cannot read: that record is skipped and counted.
         */
        public Builder<K, V> key(Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> key) {
            this.keyOf = Objects.requireNonNull(key, "key");
            return this;
        }

        /** The value handed to the waits for a record whose key is not null. It may throw, as {@link #key}. */
        public Builder<K, V> value(Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> value) {
            this.valueOf = Objects.requireNonNull(value, "value");
            return this;
        }

        /**
         * The feed's name, for its thread, logs and meters (default: the waits' name).
         *
         * @throws IllegalArgumentException if {@code feedName} is blank
         */
        public Builder<K, V> name(String feedName) {
            this.name = FeedConfig.checkNotBlank("name", feedName);
            return this;
        }

        /**
         * How far back, by record timestamp, the feed reads on start (default: the waits'
         * {@link KeyedWaits#retentionWindow() retention window}; zero reads only what comes after
         * the start).
         *
         * @throws IllegalArgumentException if {@code readBack} is negative or over 100 years
         */
        public Builder<K, V> readBack(Duration readBack) {
            this.readBack = FeedConfig.checkDuration("readBack", readBack, Duration.ZERO, Duration.ofDays(36_500));
            return this;
        }

        /**
         * How long the feed may take to reach the end of the topic it saw before it counts as
         * lagging (default 10 s). See {@link KafkaFeed#isLagging()}.
         *
         * @throws IllegalArgumentException if {@code threshold} is negative or over 24 days
         */
        public Builder<K, V> lagThreshold(Duration threshold) {
            this.lagThreshold = FeedConfig.checkDuration("lagThreshold", threshold, Duration.ZERO,
                    Duration.ofDays(24));
            return this;
        }

        /**
         * Creates the topic, with {@code partitions} partitions and {@code replicationFactor}
         * replicas, when the broker says it does not exist (default: never; the feed waits for it).
         * A topic another instance created first is taken as it is.
         *
         * @throws IllegalArgumentException if {@code partitions} or {@code replicationFactor} is below 1
         */
        public Builder<K, V> createTopicIfMissing(int partitions, short replicationFactor) {
            if (partitions < 1) {
                throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
            }
            if (replicationFactor < 1) {
                throw new IllegalArgumentException("replicationFactor must be >= 1: " + replicationFactor);
            }
            this.createTopic = new BrokerChecks.TopicSpec(partitions, replicationFactor);
            return this;
        }

        /**
         * Hands each record that carries a trace context (put there by the publisher's
         * {@link KafkaTracing#send} or {@link KafkaTracing#inject}) to the waits inside a span of
         * its trace: a child of the publisher's span, current while the waits it answers end, so
         * their observer can link to it (see {@link KafkaTracing}). Default: no tracing, and no
         * Micrometer Tracing needed.
         */
        public Builder<K, V> tracing(KafkaTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /** If true, {@link KafkaFeed#close()} closes the waits after the feed has stopped (default false). */
        public Builder<K, V> closeWaits(boolean close) {
            this.closeWaits = close;
            return this;
        }

        /**
         * Builds the feed, not started.
         *
         * @throws IllegalStateException if {@code key}, {@code value} or {@code bootstrap.servers} is missing
         */
        public KafkaFeed<K, V> build() {
            if (keyOf == null || valueOf == null) {
                throw new IllegalStateException("key(...) and value(...) are required");
            }
            if (!consumerProperties.containsKey(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
                throw new IllegalStateException("bootstrapServers(...) is required");
            }
            FeedEnvironment env = new FeedEnvironment(clock, wallClockMs, consumerFactory, adminFactory, pollTimeout,
                    apiTimeout, retryBackoff);
            String feedName = name != null ? name : waits.name();
            return new KafkaFeed<>(new FeedConfig<>(waits, topic, feedName, consumerProperties, keyOf, valueOf,
                    readBack, lagThreshold, closeWaits, createTopic, env,
                    tracing == null ? null : tracing.forFeed(feedName, topic)));
        }

        Builder<K, V> clock(Clock testClock) {
            this.clock = testClock;
            return this;
        }

        Builder<K, V> wallClockMs(LongSupplier testWallClock) {
            this.wallClockMs = testWallClock;
            return this;
        }

        Builder<K, V> consumerFactory(Function<Map<String, Object>, Consumer<byte[], byte[]>> factory) {
            this.consumerFactory = factory;
            return this;
        }

        Builder<K, V> adminFactory(BiFunction<Map<String, Object>, Duration, TopicAdmin> factory) {
            this.adminFactory = factory;
            return this;
        }

        Builder<K, V> timeouts(Duration poll, Duration api, Duration retry) {
            this.pollTimeout = poll;
            this.apiTimeout = api;
            this.retryBackoff = retry;
            return this;
        }
    }
}
