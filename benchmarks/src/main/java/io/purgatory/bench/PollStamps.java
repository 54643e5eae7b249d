package io.purgatory.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer interceptor that stamps the moment {@code poll()} returns its records (the consumer
 * calls {@code onConsume} on the polling thread just before it returns them) and hands each record
 * and that time to the hook registered for the consumer's {@code client.id}. Kafka creates it by
 * name ({@code interceptor.classes}), hence public with a public constructor; the feed-rate workload
 * gives it to each feed's consumer that way, and never changes the records.
 */
public final class PollStamps implements ConsumerInterceptor<byte[], byte[]> {

    /** What is told of each record returned by a poll. */
    @FunctionalInterface
    interface Hook {
        void polled(ConsumerRecord<byte[], byte[]> record, long nanoTime);
    }

    private static final Map<String, Hook> HOOKS = new ConcurrentHashMap<>();

    private volatile String clientId = "";

    /** Kafka's: created by name from {@code interceptor.classes}. */
    public PollStamps() {
    }

    /** Tells {@code hook} of every record the consumer {@code clientId} returns from now on. */
    static void register(String clientId, Hook hook) {
        HOOKS.put(clientId, hook);
    }

    static void unregister(String clientId) {
        HOOKS.remove(clientId);
    }

    @Override
    public void configure(Map<String, ?> configs) {
        Object id = configs.get(ConsumerConfig.CLIENT_ID_CONFIG);
        clientId = id == null ? "" : id.toString();
    }

    @Override
    public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
        long now = System.nanoTime();
        Hook hook = HOOKS.get(clientId);
        if (hook != null) {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                hook.polled(record, now);
            }
        }
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        // the feed never commits
    }

    @Override
    public void close() {
        // nothing held
    }
}
