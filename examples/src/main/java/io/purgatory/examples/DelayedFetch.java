package io.purgatory.examples;

import io.purgatory.DelayedOperation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A consumer fetch with {@code minBytes} and {@code maxWaitMs} over one or more partitions. It
 * completes when the committed bytes readable from its offsets reach {@code minBytes}, or at once
 * on a partition error; when it expires it returns whatever is readable then.
 */
public final class DelayedFetch extends DelayedOperation {

    /** One partition's answer: its error, high watermark and the records read. */
    public record FetchPartitionData(Errors error, long highWatermark, List<byte[]> records) {
        public long bytes() {
            long n = 0;
            for (byte[] r : records) {
                n += r.length;
            }
            return n;
        }
    }

    private final int minBytes;
    private final int maxBytes;
    private final Map<TopicPartition, Long> fetchOffsets;
    private final Function<TopicPartition, Partition> partitions;
    private final Consumer<Map<TopicPartition, FetchPartitionData>> responseCallback;
    private final Runnable onExpired;

    DelayedFetch(long maxWaitMs, int minBytes, int maxBytes, Map<TopicPartition, Long> fetchOffsets,
                 Function<TopicPartition, Partition> partitions,
                 Consumer<Map<TopicPartition, FetchPartitionData>> responseCallback, Runnable onExpired) {
        super(maxWaitMs);
        this.minBytes = minBytes;
        this.maxBytes = maxBytes;
        this.fetchOffsets = fetchOffsets;
        this.partitions = partitions;
        this.responseCallback = responseCallback;
        this.onExpired = onExpired;
    }

    @Override
    protected boolean tryComplete() {
        return isSatisfied(minBytes, maxBytes, fetchOffsets, partitions) && forceComplete();
    }

    /** Re-reads the log at completion time (as Kafka does), so the answer is as fresh as possible. */
    @Override
    protected void onComplete() {
        responseCallback.accept(read(maxBytes, fetchOffsets, partitions));
    }

    @Override
    protected void onExpiration() {
        onExpired.run();
    }

    /** True iff some partition has an error or the readable bytes reach {@code minBytes}. */
    static boolean isSatisfied(int minBytes, int maxBytes, Map<TopicPartition, Long> offsets,
                               Function<TopicPartition, Partition> partitions) {
        long accumulated = 0;
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            Partition p = partitions.apply(e.getKey());
            if (p == null || p.fetchError(e.getValue()) != null) {
                return true;
            }
            accumulated += p.readableBytes(e.getValue(), maxBytes);
            if (accumulated >= minBytes) {
                return true;
            }
        }
        return false;
    }

    /** Reads every partition, sharing {@code maxBytes} among them in order. */
    static Map<TopicPartition, FetchPartitionData> read(int maxBytes, Map<TopicPartition, Long> offsets,
                                                        Function<TopicPartition, Partition> partitions) {
        Map<TopicPartition, FetchPartitionData> out = new LinkedHashMap<>();
        long budget = maxBytes;
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            Partition p = partitions.apply(e.getKey());
            if (p == null) {
                out.put(e.getKey(), new FetchPartitionData(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, List.of()));
                continue;
            }
            Errors error = p.fetchError(e.getValue());
            if (error != null) {
                out.put(e.getKey(), new FetchPartitionData(error, p.highWatermark(), List.of()));
                continue;
            }
            List<byte[]> records = budget > 0 ? p.read(e.getValue(), (int) budget) : List.of();
            FetchPartitionData data = new FetchPartitionData(Errors.NONE, p.highWatermark(), records);
            budget -= data.bytes();
            out.put(e.getKey(), data);
        }
        return out;
    }

    @Override
    public String toString() {
        return "DelayedFetch" + fetchOffsets;
    }
}
