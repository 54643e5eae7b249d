package io.purgatory.kafka;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The configuration of one feed, as {@link KafkaFeed.Builder} collected it, each setting checked
 * (by the {@code check} methods here) when it was given: an immutable value, so a builder changed
 * after {@code build()} changes no feed. The consumer's properties are the user's;
 * {@link #consumerConfig()} adds those the feed sets itself.
 *
 * @param name the feed's name: its thread's, logs' and meters'
 * @param consumerProperties the user's consumer properties (none the feed sets itself)
 * @param createTopic the topic to create if it is missing, or null: never create it
 * @param env the clock, clients and timeouts: the real ones, or a test's
 * @param tracing how records are handed over in their trace ({@link KafkaTracing}), or null: untraced
 */
record FeedConfig<K, V>(KeyedWaits<K, V> waits, String topic, String name, Map<String, Object> consumerProperties,
                        Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> keyOf,
                        Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> valueOf,
                        Duration readBack, Duration lagThreshold, boolean closeWaits,
                        BrokerChecks.TopicSpec createTopic, FeedEnvironment env, RecordTracing tracing) {

    /** The properties the feed sets itself, whatever the user gives: the user may not set them. */
    static final Map<String, Object> FIXED = Map.of(
            ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none", // the feed positions every partition itself
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);

    FeedConfig {
        Objects.requireNonNull(waits, "waits");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(name, "name");
        consumerProperties = Map.copyOf(consumerProperties);
        Objects.requireNonNull(keyOf, "key");
        Objects.requireNonNull(valueOf, "value");
        Objects.requireNonNull(readBack, "readBack");
        Objects.requireNonNull(lagThreshold, "lagThreshold");
        Objects.requireNonNull(env, "env");
    }

    private static final Map<String, ConfigDef.ConfigKey> CONSUMER_KEYS = ConsumerConfig.configDef().configKeys();
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    /** {@code topic} if Kafka would take it as a topic's name. */
    static String checkTopic(String topic) {
        Objects.requireNonNull(topic, "topic");
        if (!LEGAL_TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("topic must be 1 to 249 of a-z, A-Z, 0-9, '.', '_', '-' (not . or ..): '"
                    + topic + "'");
        }
        return topic;
    }

    /** {@code value} if it is not blank. */
    static String checkNotBlank(String argument, String value) {
        Objects.requireNonNull(value, argument);
        if (value.isBlank()) {
            throw new IllegalArgumentException(argument + " must not be blank: '" + value + "'");
        }
        return value;
    }

    /** {@code value} if it is {@code min} to {@code max}. */
    static Duration checkDuration(String argument, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, argument);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(argument + " must be " + min + " to " + max + ": " + value);
        }
        return value;
    }

    /** Refuses {@code group.id}, the properties the feed sets itself, and values the consumer would refuse. */
    static void checkConsumerProperty(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.equals(ConsumerConfig.GROUP_ID_CONFIG)) {
            throw new IllegalArgumentException("group.id must not be set: every instance's feed reads every"
                    + " partition, with no group: " + value);
        }
        if (FIXED.containsKey(key)) {
            throw new IllegalArgumentException(key + " is set by the feed itself (" + FIXED.get(key) + "): " + value);
        }
        ConfigDef.ConfigKey known = CONSUMER_KEYS.get(key);
        if (known != null) {
            try {
                Object parsed = ConfigDef.parseType(key, value, known.type);
                if (known.validator != null) {
                    known.validator.ensureValid(key, parsed);
                }
            } catch (ConfigException e) {
                throw new IllegalArgumentException("consumer property " + key + " is invalid: " + e.getMessage(), e);
            }
        }
    }

    /** The consumer's configuration: the user's properties, the feed's defaults under them, its fixed ones over. */
    Map<String, Object> consumerConfig() {
        Map<String, Object> props = new HashMap<>(consumerProperties);
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "kafka-feed-" + name);
        props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.putAll(FIXED);
        return props;
    }
}
