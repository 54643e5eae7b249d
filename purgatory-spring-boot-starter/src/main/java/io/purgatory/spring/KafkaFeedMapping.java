package io.purgatory.spring;

import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * How the auto-configured feed of one keyed waits bean maps a record to an event: its key and its
 * value. Declare one as a bean for waits whose keys or values are not strings:
 *
 * <pre>{@code
 * @Bean
 * KafkaFeedMapping<Long, String> paymentRecords() {
 *     return KafkaFeedMapping.of("payments", record -> Long.valueOf(new String(record.key(), UTF_8)),
 *             record -> new String(record.value(), UTF_8));
 * }
 * }</pre>
 *
 * Without one, the feed of {@code KeyedWaits<String, String>} reads both as UTF-8; the feed of any
 * other waits is refused at start-up. A function may throw for a record it cannot read: the feed
 * counts the record as a mapping error and goes on; a null key means "not an event for these
 * waits".
 *
 * @param <K> the waits' key type
 * @param <V> the waits' value type
 */
public interface KafkaFeedMapping<K, V> {

    /** The bean name of the keyed waits whose feed this maps (the key of {@code purgatory.kafka.feeds}). */
    String waits();

    /** The event's key, or null when the record is no event for the waits. */
    K key(ConsumerRecord<byte[], byte[]> record);

    /** The event's value. */
    V value(ConsumerRecord<byte[], byte[]> record);

    /** The mapping of the feed of the waits bean {@code waits} by {@code key} and {@code value}. */
    static <K, V> KafkaFeedMapping<K, V> of(String waits, Function<ConsumerRecord<byte[], byte[]>, K> key,
                                            Function<ConsumerRecord<byte[], byte[]>, V> value) {
        Objects.requireNonNull(waits, "waits");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return new KafkaFeedMapping<>() {
            @Override
            public String waits() {
                return waits;
            }

            @Override
            public K key(ConsumerRecord<byte[], byte[]> record) {
                return key.apply(record);
            }

            @Override
            public V value(ConsumerRecord<byte[], byte[]> record) {
                return value.apply(record);
            }

            @Override
            public String toString() {
                return "KafkaFeedMapping[" + waits + "]";
            }
        };
    }
}
