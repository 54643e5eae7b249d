package io.purgatory.kafka;

import java.util.function.IntSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * How a feed's thread hands a record over when the feed traces ({@link KafkaTracing}): inside a
 * span of the record's trace. The feed's loop knows only this type, none of Micrometer Tracing's,
 * so a feed built without tracing never loads them.
 */
interface RecordTracing {

    /**
     * Runs {@code handOver} (the waits' {@code complete}) for {@code record}, inside the span of
     * the trace the record carries, if any, and returns its result. Whatever {@code handOver}
     * throws reaches the caller; whatever the tracing throws goes to {@code errors}, and the record
     * is handed over regardless.
     */
    int handOver(ConsumerRecord<byte[], byte[]> record, IntSupplier handOver, FeedErrors errors);
}
