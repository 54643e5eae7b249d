package io.purgatory.examples;

import io.purgatory.DelayedOperation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * An acks=all produce over one or more partitions, watched on each of them. It completes when
 * every partition's high watermark reaches the offset after its appended record, or the partition
 * fails (leadership moved, too few in-sync replicas); partitions still waiting when it expires
 * answer {@link Errors#REQUEST_TIMED_OUT}.
 */
public final class DelayedProduce extends DelayedOperation {

    /** One partition's answer: its error and the offset of the appended record (-1 if none). */
    public record PartitionResponse(Errors error, long baseOffset) {
    }

    /** Decides a partition's fate: its error once decided, or null while it must wait. */
    @FunctionalInterface
    public interface ReplicaCheck {
        Errors check(TopicPartition partition, long requiredOffset);
    }

    /** A partition's progress: pre-set to REQUEST_TIMED_OUT while acks are pending (Kafka's pattern). */
    static final class PartitionStatus {
        final long baseOffset;
        boolean acksPending;
        Errors error;

        PartitionStatus(long baseOffset, boolean acksPending, Errors error) {
            this.baseOffset = baseOffset;
            this.acksPending = acksPending;
            this.error = error;
        }
    }

    private final Map<TopicPartition, PartitionStatus> status;
    private final ReplicaCheck replicaCheck;
    private final Consumer<Map<TopicPartition, PartitionResponse>> responseCallback;
    private final Runnable onExpired;

    DelayedProduce(long timeoutMs, Map<TopicPartition, PartitionStatus> status, ReplicaCheck replicaCheck,
                   Consumer<Map<TopicPartition, PartitionResponse>> responseCallback, Runnable onExpired) {
        super(timeoutMs);
        this.status = status;
        this.replicaCheck = replicaCheck;
        this.responseCallback = responseCallback;
        this.onExpired = onExpired;
    }

    /** Tries run one at a time, each happening-before the next and the callbacks: the status needs no guard. */
    @Override
    protected boolean tryComplete() {
        boolean pending = false;
        for (Map.Entry<TopicPartition, PartitionStatus> e : status.entrySet()) {
            PartitionStatus s = e.getValue();
            if (s.acksPending) {
                Errors decided = replicaCheck.check(e.getKey(), s.baseOffset + 1);
                if (decided == null) {
                    pending = true;
                } else {
                    s.acksPending = false;
                    s.error = decided;
                }
            }
        }
        return !pending && forceComplete();
    }

    @Override
    protected void onComplete() {
        responseCallback.accept(responses(status));
    }

    @Override
    protected void onExpiration() {
        onExpired.run();
    }

    static Map<TopicPartition, PartitionResponse> responses(Map<TopicPartition, PartitionStatus> status) {
        Map<TopicPartition, PartitionResponse> out = new LinkedHashMap<>();
        status.forEach((tp, s) -> out.put(tp, new PartitionResponse(s.error, s.baseOffset)));
        return out;
    }

    @Override
    public String toString() {
        return "DelayedProduce" + status.keySet();
    }
}
