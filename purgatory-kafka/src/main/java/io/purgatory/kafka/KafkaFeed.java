package io.purgatory.kafka;

import io.purgatory.KeyedWaits;
import io.purgatory.timer.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

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
 * topic are found within {@link Builder#refreshInterval} and read from their start.
 *
 * <p><b>Errors never stop it.</b> A mapping function that throws costs its record only (counted,
 * logged at most every 10 s); a broker that is down is retried. Records are read as bytes and
 * mapped by your functions, so a record that cannot be decoded is a counted mapping error, never
 * a poison pill.
 *
 * <p><b>Shutdown order.</b> Close the feed before the waits. With {@link Builder#closeWaits
 * closeWaits(true)} its {@link #close()} does both, in that order. Closing the waits first is
 * harmless: the feed stops at the next record, and a closed wait is never completed.
 *
 * <p><b>Threads.</b> One thread per feed, named {@code kafka-feed-<name>}, a daemon. The waits'
 * futures complete on it, and so do their dependent stages without {@code Async}: keep those
 * short, or they slow the feed. The methods of this class are thread-safe.
 *
 * @param <K> the key type of the waits
 * @param <V> the event value type of the waits
 */
public final class KafkaFeed<K, V> implements AutoCloseable {

    private final Builder<K, V> config;
    private final String name;
    private final FeedCounters counters = new FeedCounters();
    private final long lagThresholdNanos;
    private final Object lifecycle = new Object();
    private FeedLoop<K, V> loop; // guarded by lifecycle
    private Thread thread; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle

    private KafkaFeed(Builder<K, V> b) {
        this.config = b;
        this.name = b.name != null ? b.name : b.waits.name();
        this.lagThresholdNanos = b.lagThreshold.toNanos();
    }

    /**
     * Starts a builder of a feed of {@code waits} from {@code topic}. The key and value types are
     * those of the waits.
     */
    public static <K, V> Builder<K, V> builder(KeyedWaits<K, V> waits, String topic) {
        return new Builder<>(waits, topic);
    }

    /**
     * Creates the consumer and starts the feed's thread. Returns this feed.
     *
     * @throws IllegalStateException if the feed was started or closed, or its waits are closed
     * @throws org.apache.kafka.common.KafkaException if the consumer's configuration is refused
     */
    public KafkaFeed<K, V> start() {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("feed '" + name + "' is closed");
            }
            if (thread != null) {
                throw new IllegalStateException("feed '" + name + "' is started already");
            }
            if (config.waits.isClosed()) {
                throw new IllegalStateException("the keyed waits '" + config.waits.name() + "' are closed");
            }
            Consumer<byte[], byte[]> consumer = config.consumerFactory.apply(consumerConfig());
            counters.started(config.clock.nanoTime());
            loop = new FeedLoop<>(config, name, consumer, counters);
            thread = new Thread(loop, "kafka-feed-" + name);
            thread.setDaemon(true);
            thread.start();
        }
        return this;
    }

    /** A snapshot of the feed's numbers: events by outcome, errors, lag, health. */
    public FeedStats stats() {
        return counters.snapshot(config.clock.nanoTime(), lagThresholdNanos);
    }

    /**
     * The health signal: true while the feed has not reached, within the lag threshold, the end
     * of the topic as it was when it last saw a lag (on start: until it has read back); while one
     * batch of records has taken longer than the threshold (a mapping function or a dependent
     * stage blocks the feed's thread); or when the broker did not answer its last check. A lagging
     * feed answers waits late.
     */
    public boolean isLagging() {
        return counters.lagging(config.clock.nanoTime(), lagThresholdNanos);
    }

    /** The feed's name: its thread's and its meters' (by default the waits' name). */
    public String name() {
        return name;
    }

    /** The topic the feed reads. */
    public String topic() {
        return config.topic;
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
                        name);
            }
        }
        if (config.closeWaits) {
            config.waits.close();
        }
    }

    FeedCounters counters() {
        return counters;
    }

    private Map<String, Object> consumerConfig() {
        Map<String, Object> props = new HashMap<>(config.consumerProperties);
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "kafka-feed-" + name);
        props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.putIfAbsent(ConsumerConfig.METADATA_MAX_AGE_CONFIG, (int) config.refreshInterval.toMillis());
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // the feed positions every partition itself
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return props;
    }

    /**
     * Builds a {@link KafkaFeed}: {@link #bootstrapServers} (or the consumer property),
     * {@link #key} and {@link #value} are required. Not thread-safe.
     *
     * @param <K> the key type of the waits
     * @param <V> the event value type of the waits
     */
    public static final class Builder<K, V> {
        final KeyedWaits<K, V> waits;
        final String topic;
        final Map<String, Object> consumerProperties = new HashMap<>();
        Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> keyOf;
        Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> valueOf;
        String name;
        Duration readBack;
        Duration lagThreshold = Duration.ofSeconds(10);
        Duration refreshInterval = Duration.ofSeconds(10);
        boolean closeWaits;
        // for tests
        Duration pollTimeout = Duration.ofMillis(500);
        Duration apiTimeout = Duration.ofSeconds(5);
        Clock clock = Clock.system();
        LongSupplier wallClockMs = System::currentTimeMillis;
        Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory = KafkaConsumer::new;

        Builder(KeyedWaits<K, V> waits, String topic) {
            this.waits = Objects.requireNonNull(waits, "waits");
            this.topic = Objects.requireNonNull(topic, "topic");
            if (topic.isBlank()) {
                throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
            }
            this.readBack = waits.retentionWindow();
        }

        /** The brokers to bootstrap from: the consumer's {@code bootstrap.servers}. */
        public Builder<K, V> bootstrapServers(String servers) {
            Objects.requireNonNull(servers, "servers");
            return consumerProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        }

        /**
         * A property of the feed's consumer (security, fetch sizes, {@code client.id}...). The feed
         * sets some itself: no {@code group.id}, no auto commit, {@code auto.offset.reset=none},
         * byte-array deserializers, no auto-created topics; by default {@code read_committed}.
         *
         * @throws IllegalArgumentException for {@code group.id}: the feed reads every partition itself
         */
        public Builder<K, V> consumerProperty(String key, Object value) {
            Objects.requireNonNull(key, "key");
            if (key.equals(ConsumerConfig.GROUP_ID_CONFIG)) {
                throw new IllegalArgumentException("group.id must not be set: every instance's feed reads every"
                        + " partition, with no group: " + value);
            }
            consumerProperties.put(key, Objects.requireNonNull(value, "value"));
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

        /** The feed's name, for its thread, logs and meters (default: the waits' name). */
        public Builder<K, V> name(String feedName) {
            this.name = Objects.requireNonNull(feedName, "name");
            return this;
        }

        /**
         * How far back, by record timestamp, the feed reads on start (default: the waits'
         * {@link KeyedWaits#retentionWindow() retention window}; zero reads only what comes after
         * the start).
         *
         * @throws IllegalArgumentException if {@code readBack} is negative
         */
        public Builder<K, V> readBack(Duration readBack) {
            if (readBack.isNegative()) {
                throw new IllegalArgumentException("readBack must be >= 0: " + readBack);
            }
            this.readBack = readBack;
            return this;
        }

        /**
         * How long the feed may take to reach the end of the topic it saw before it counts as
         * lagging (default 10 s). See {@link KafkaFeed#isLagging()}.
         *
         * @throws IllegalArgumentException if {@code threshold} is negative
         */
        public Builder<K, V> lagThreshold(Duration threshold) {
            if (threshold.isNegative()) {
                throw new IllegalArgumentException("lagThreshold must be >= 0: " + threshold);
            }
            this.lagThreshold = threshold;
            return this;
        }

        /**
         * How often the feed looks for new partitions and checks the end offsets with the broker
         * (default 10 s; also the consumer's {@code metadata.max.age.ms} unless you set it).
         *
         * @throws IllegalArgumentException if {@code interval} is not positive
         */
        public Builder<K, V> refreshInterval(Duration interval) {
            if (interval.isNegative() || interval.isZero() || interval.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("refreshInterval must be 1 ms to 24 days: " + interval);
            }
            this.refreshInterval = interval;
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
            return new KafkaFeed<>(copy()); // later changes to this builder do not reach the feed
        }

        private Builder<K, V> copy() {
            Builder<K, V> b = new Builder<>(waits, topic);
            b.consumerProperties.putAll(consumerProperties);
            b.keyOf = keyOf;
            b.valueOf = valueOf;
            b.name = name;
            b.readBack = readBack;
            b.lagThreshold = lagThreshold;
            b.refreshInterval = refreshInterval;
            b.closeWaits = closeWaits;
            b.pollTimeout = pollTimeout;
            b.apiTimeout = apiTimeout;
            b.clock = clock;
            b.wallClockMs = wallClockMs;
            b.consumerFactory = consumerFactory;
            return b;
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

        Builder<K, V> timeouts(Duration poll, Duration api) {
            this.pollTimeout = poll;
            this.apiTimeout = api;
            return this;
        }
    }
}
