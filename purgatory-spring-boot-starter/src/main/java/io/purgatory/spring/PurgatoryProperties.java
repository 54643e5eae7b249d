package io.purgatory.spring;

import io.purgatory.ClosePolicy;
import io.purgatory.KeyRenderer;
import io.purgatory.PurgatoryBuilder;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code purgatory.*} properties. They configure what the starter builds: the shared
 * {@code PurgatoryRuntime} ({@code purgatory.runtime.*}), the builders a {@link PurgatoryFactory}
 * hands out ({@code shards}, {@code max-pending}, {@code close-policy}), the Micrometer binding of
 * every purgatory bean not bound yet ({@code purgatory.metrics.*}), the observation of each wait
 * of the factory's purgatories ({@code purgatory.observations.*}), the health contributor
 * ({@code purgatory.health.*}), what the {@code purgatories} actuator endpoint shows of keys
 * ({@code purgatory.actuator.*}) and the Kafka feeds of keyed waits ({@code purgatory.kafka.*}, with
 * {@code purgatory-kafka} on the class path). A purgatory you build yourself with
 * {@code KeyedWaits.builder(...)} or {@code DelayedOperationPurgatory.builder(...)} keeps its own
 * settings; only the metrics binding reaches it, when it is a bean. The defaults are the core's
 * ({@code PurgatoryBuilder.DEFAULT_SHARDS}, {@code TimerSettings.DEFAULT}); the IDE metadata
 * repeats them from {@code additional-spring-configuration-metadata.json}, checked against them.
 *
 * <p>Spring Boot validates them as it binds them (they are their own {@link Validator}: no Bean
 * Validation provider is needed): a value out of range, such as {@code purgatory.shards=3}, fails
 * the startup with a short report naming the property, the value and the allowed range.
 */
@ConfigurationProperties("purgatory")
public class PurgatoryProperties implements Validator {

    private final SharedRuntime runtime = new SharedRuntime();
    private final Metrics metrics = new Metrics();
    private final Observations observations = new Observations();
    private final Health health = new Health();
    private final Kafka kafka = new Kafka();
    private final Actuator actuator = new Actuator();

    /** Shards of the key space of each purgatory from the PurgatoryFactory: a power of two from 1 to 65536. */
    private int shards = PurgatoryBuilder.DEFAULT_SHARDS;

    /**
     * Pending operations each purgatory from the PurgatoryFactory holds at most; beyond, a
     * submission throws PurgatoryFullException (an await answers 503). 0: no limit.
     */
    private int maxPending;

    /**
     * What closing a purgatory from the PurgatoryFactory (at shutdown) does with its pending
     * operations: expire (keyed waits answer as at their timeout), cancel, or complete (purgatories
     * of your own operations only; keyed waits keep expire).
     */
    private ClosePolicy closePolicy = ClosePolicy.EXPIRE;

    /** Whether {@link #validate} checks objects of {@code type}: these properties and their groups. */
    @Override
    public boolean supports(Class<?> type) {
        return PropertyRules.supports(type);
    }

    /**
     * Rejects each property of {@code target} (these properties, or one of their groups) out of its
     * allowed range, under the property's name; Spring Boot calls it as it binds them.
     */
    @Override
    public void validate(Object target, Errors errors) {
        PropertyRules.check(target, errors);
    }

    /** The shared runtime's settings. */
    public SharedRuntime getRuntime() {
        return runtime;
    }

    /** The metrics binding's settings. */
    public Metrics getMetrics() {
        return metrics;
    }

    /** The observations' settings. */
    public Observations getObservations() {
        return observations;
    }

    /** The health contributor's settings. */
    public Health getHealth() {
        return health;
    }

    /** The Kafka feeds' settings. */
    public Kafka getKafka() {
        return kafka;
    }

    /** The purgatories actuator endpoint's settings. */
    public Actuator getActuator() {
        return actuator;
    }

    /** Shards of each purgatory from the factory. */
    public int getShards() {
        return shards;
    }

    /** Sets the shards of each purgatory from the factory. */
    public void setShards(int shards) {
        this.shards = shards;
    }

    /** Pending operations each purgatory from the factory holds at most (0: no limit). */
    public int getMaxPending() {
        return maxPending;
    }

    /** Sets the pending operations each purgatory from the factory holds at most (0: no limit). */
    public void setMaxPending(int maxPending) {
        this.maxPending = maxPending;
    }

    /** The close policy of each purgatory from the factory. */
    public ClosePolicy getClosePolicy() {
        return closePolicy;
    }

    /** Sets the close policy of each purgatory from the factory. */
    public void setClosePolicy(ClosePolicy closePolicy) {
        this.closePolicy = closePolicy;
    }

    /** The shared {@code PurgatoryRuntime} the starter builds, unless the application defines one. */
    public static class SharedRuntime {

        /** Name of the shared runtime; it names its threads (ExpirationReaper-NAME, NAME-expiration). */
        private String name = "purgatory";

        /** Tick of the shared timer: the precision of every timeout on it (whole milliseconds). */
        @DurationUnit(ChronoUnit.MILLIS)
        private Duration tick = Duration.ofMillis(TimerSettings.DEFAULT.tickMs());

        /** Buckets per wheel of the shared timer. */
        private int wheelSize = TimerSettings.DEFAULT.wheelSize();

        /**
         * Back-pressure on the shared timer: while its expiries run more than this behind their
         * deadlines, a submission to any purgatory on it waits (at most this long per call) for them
         * to catch up. Unset: none.
         */
        private Duration backPressure;

        /**
         * Name of an Executor bean on which the shared runtime runs its expirations (for instance
         * applicationTaskExecutor); the context shuts it down, not the runtime. Unset: two daemon
         * threads of the runtime's own (NAME-expiration).
         */
        private String expirationExecutor;

        /** Name of the shared runtime. */
        public String getName() {
            return name;
        }

        /** Sets the name of the shared runtime. */
        public void setName(String name) {
            this.name = name;
        }

        /** Tick of the shared timer. */
        public Duration getTick() {
            return tick;
        }

        /** Sets the tick of the shared timer. */
        public void setTick(Duration tick) {
            this.tick = tick;
        }

        /** Buckets per wheel of the shared timer. */
        public int getWheelSize() {
            return wheelSize;
        }

        /** Sets the buckets per wheel of the shared timer. */
        public void setWheelSize(int wheelSize) {
            this.wheelSize = wheelSize;
        }

        /** Back-pressure lag of the shared timer, or null for none. */
        public Duration getBackPressure() {
            return backPressure;
        }

        /** Sets the back-pressure lag of the shared timer (null: none). */
        public void setBackPressure(Duration backPressure) {
            this.backPressure = backPressure;
        }

        /** Name of the Executor bean of the shared runtime's expirations, or null for its own threads. */
        public String getExpirationExecutor() {
            return expirationExecutor;
        }

        /** Sets the name of the Executor bean of the shared runtime's expirations (null: its own threads). */
        public void setExpirationExecutor(String expirationExecutor) {
            this.expirationExecutor = expirationExecutor;
        }
    }

    /** The binding of purgatories to the context's MeterRegistry. */
    public static class Metrics {

        /**
         * Whether every purgatory bean (keyed waits included) not yet bound is bound to the context's
         * MeterRegistry (the purgatory.* meters), and the factory's builders too.
         */
        private boolean enabled = true;

        /**
         * Histogram bucket boundaries of the purgatory.operations and
         * purgatory.expiration.lateness timers; empty: no histogram. Default: 1ms, 5ms, 10ms, 25ms,
         * 50ms, 100ms, 250ms, 500ms, 1s, 2500ms, 5s, 10s, 30s and 60s (MicrometerMetrics.DEFAULT_BUCKETS).
         */
        @DurationUnit(ChronoUnit.MILLIS)
        private List<Duration> buckets;

        /** Whether purgatories are bound to the MeterRegistry. */
        public boolean isEnabled() {
            return enabled;
        }

        /** Sets whether purgatories are bound to the MeterRegistry. */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** Histogram bucket boundaries of both timers; null: MicrometerMetrics' defaults. */
        public List<Duration> getBuckets() {
            return buckets;
        }

        /** Sets the histogram bucket boundaries of both timers. */
        public void setBuckets(List<Duration> buckets) {
            this.buckets = buckets;
        }
    }

    /** The observation of each wait in the context's ObservationRegistry. */
    public static class Observations {

        /**
         * Whether each wait of the purgatories and keyed waits from the PurgatoryFactory is a
         * Micrometer Observation (purgatory.wait) in the context's ObservationRegistry: a span when
         * Micrometer Tracing is configured, a timer with the meter handler.
         */
        private boolean enabled = true;

        /**
         * Whether, with Micrometer Tracing, each wait's span is made when the wait ends (dated from
         * its start) with a link (purgatory.link=answered_by) to the span current where it ended when
         * that span is of another trace: the event that answered it (a KafkaFeed record, another
         * request). When false, Micrometer's default tracing handler makes the span, without a link.
         */
        private boolean linkAnswers = true;

        /** Whether each wait is observed. */
        public boolean isEnabled() {
            return enabled;
        }

        /** Sets whether each wait is observed. */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** Whether each wait's span links to the span that answered it. */
        public boolean isLinkAnswers() {
            return linkAnswers;
        }

        /** Sets whether each wait's span links to the span that answered it. */
        public void setLinkAnswers(boolean linkAnswers) {
            this.linkAnswers = linkAnswers;
        }
    }

    /** The purgatories health contributor. */
    public static class Health {

        /**
         * How long a purgatory is reported OUT_OF_SERVICE after a health check saw its rejected
         * count (submissions refused for max-pending) grow.
         */
        private Duration rejectionWindow = Duration.ofMinutes(1);

        /** How long a purgatory stays OUT_OF_SERVICE after a rejection was seen. */
        public Duration getRejectionWindow() {
            return rejectionWindow;
        }

        /** Sets how long a purgatory stays OUT_OF_SERVICE after a rejection was seen. */
        public void setRejectionWindow(Duration rejectionWindow) {
            this.rejectionWindow = rejectionWindow;
        }
    }

    /** The {@code purgatories} actuator endpoint. */
    public static class Actuator {

        /**
         * How /actuator/purgatories/{name} shows the keys and tenants of pending operations, which
         * can hold personal data: shown (toString cut to 64 characters), hidden (each as *), or a
         * number of characters to cut toString to. Not to be set when the application defines a
         * KeyRenderer bean: the endpoint shows keys with it.
         */
        private String keys = "shown";

        /** How the endpoint shows keys: shown, hidden or a number of characters. */
        public String getKeys() {
            return keys;
        }

        /** Sets how the endpoint shows keys: shown, hidden or a number of characters. */
        public void setKeys(String keys) {
            this.keys = keys;
        }

        /**
         * The renderer {@link #getKeys() keys} names, or null if it names none: {@code shown}
         * ({@link KeyRenderer#DEFAULT}), {@code hidden} ({@link KeyRenderer#HIDDEN}) or a number
         * {@code n} from 1 ({@link KeyRenderer#truncated(int) truncated(n)}), case and spaces aside.
         */
        KeyRenderer keyRenderer() {
            String value = keys == null ? "" : keys.strip().toLowerCase(Locale.ROOT);
            if (value.equals("shown")) {
                return KeyRenderer.DEFAULT;
            }
            if (value.equals("hidden")) {
                return KeyRenderer.HIDDEN;
            }
            if (!value.matches("[0-9]{1,9}") || Integer.parseInt(value) < 1) {
                return null;
            }
            return KeyRenderer.truncated(Integer.parseInt(value));
        }
    }

    /**
     * The Kafka feeds of keyed waits ({@code purgatory-kafka} on the class path): one
     * {@code KafkaFeed} bean per entry of {@code purgatory.kafka.feeds}, keyed by the name of the
     * keyed waits it completes.
     */
    public static class Kafka {

        /**
         * Brokers the feeds bootstrap from. Unset: spring.kafka.consumer.bootstrap-servers, else
         * spring.kafka.bootstrap-servers.
         */
        private List<String> bootstrapServers;

        /**
         * More properties of every feed's consumer (security, fetch sizes...), after Spring Kafka's
         * spring.kafka.properties.* and spring.kafka.consumer.properties.*. Those the feed sets
         * itself (group.id, enable.auto.commit, auto.offset.reset, the deserializers,
         * allow.auto.create.topics) are refused.
         */
        private final Map<String, String> consumer = new LinkedHashMap<>();

        /** The feeds, by the purgatory name of the keyed waits each completes. */
        private final Map<String, Feed> feeds = new LinkedHashMap<>();

        /** The brokers, or null for Spring Kafka's. */
        public List<String> getBootstrapServers() {
            return bootstrapServers;
        }

        /** Sets the brokers (null: Spring Kafka's). */
        public void setBootstrapServers(List<String> bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
        }

        /** More consumer properties of every feed. */
        public Map<String, String> getConsumer() {
            return consumer;
        }

        /** The feeds, by keyed waits. */
        public Map<String, Feed> getFeeds() {
            return feeds;
        }
    }

    /** One feed: the topic whose records complete a keyed waits bean, and how it reads it. */
    public static class Feed {

        /** The topic the feed reads, every partition of it. Required. */
        private String topic;

        /** How far back, by record timestamp, the feed reads on start. Unset: the waits' retention window. */
        private Duration readBack;

        /** How long the feed may take to reach the end of the topic before it counts as lagging. */
        private Duration lagThreshold = Duration.ofSeconds(10);

        /** Partitions of the topic the feed creates when it is missing. 0: never create it (the default). */
        private int createTopicPartitions;

        /** Replication factor of the topic the feed creates (with create-topic-partitions). */
        private short createTopicReplicationFactor = 1;

        /** The topic. */
        public String getTopic() {
            return topic;
        }

        /** Sets the topic. */
        public void setTopic(String topic) {
            this.topic = topic;
        }

        /** How far back the feed reads on start, or null for the waits' retention window. */
        public Duration getReadBack() {
            return readBack;
        }

        /** Sets how far back the feed reads on start (null: the waits' retention window). */
        public void setReadBack(Duration readBack) {
            this.readBack = readBack;
        }

        /** The lag threshold. */
        public Duration getLagThreshold() {
            return lagThreshold;
        }

        /** Sets the lag threshold. */
        public void setLagThreshold(Duration lagThreshold) {
            this.lagThreshold = lagThreshold;
        }

        /** Partitions of the topic created when missing (0: never created). */
        public int getCreateTopicPartitions() {
            return createTopicPartitions;
        }

        /** Sets the partitions of the topic created when missing (0: never created). */
        public void setCreateTopicPartitions(int createTopicPartitions) {
            this.createTopicPartitions = createTopicPartitions;
        }

        /** Replication factor of the topic created when missing. */
        public short getCreateTopicReplicationFactor() {
            return createTopicReplicationFactor;
        }

        /** Sets the replication factor of the topic created when missing. */
        public void setCreateTopicReplicationFactor(short createTopicReplicationFactor) {
            this.createTopicReplicationFactor = createTopicReplicationFactor;
        }
    }
}
