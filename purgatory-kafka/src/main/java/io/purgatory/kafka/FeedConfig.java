package io.purgatory.kafka;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The configuration of one feed, as {@link KafkaFeed.Builder} collected and checked it: an
 * immutable value, so a builder changed after {@code build()} changes no feed. The consumer's
 * properties are the user's; {@link #consumerConfig()} adds those the feed sets itself.
 *
 * @param name the feed's name: its thread's, logs' and meters'
 * @param consumerProperties the user's consumer properties (none the feed sets itself)
 * @param createTopic the topic to create if it is missing, or null: never create it
 * @param env the clock, clients and timeouts: the real ones, or a test's
 */
record FeedConfig<K, V>(KeyedWaits<K, V> waits, String topic, String name, Map<String, Object> consumerProperties,
                        Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> keyOf,
                        Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> valueOf,
                        Duration readBack, Duration lagThreshold, Duration refreshInterval, boolean closeWaits,
                        BrokerChecks.TopicSpec createTopic, FeedEnvironment env) {

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
        Objects.requireNonNull(refreshInterval, "refreshInterval");
        Objects.requireNonNull(env, "env");
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
