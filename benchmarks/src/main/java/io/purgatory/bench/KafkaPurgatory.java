package io.purgatory.bench;

import java.util.List;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;

/** Kafka's purgatory as a broker builds it: {@code new DelayedOperationPurgatory(name, brokerId)}. */
final class KafkaPurgatory implements PurgatoryUnderTest {

    private final DelayedOperationPurgatory<Op> purgatory;

    KafkaPurgatory(String name) {
        this.purgatory = new DelayedOperationPurgatory<>(name, 0);
    }

    @Override
    public Impl impl() {
        return Impl.KAFKA;
    }

    @Override
    public Completable newOperation(OpBody body, long delayMs) {
        return new Op(delayMs, body);
    }

    @Override
    public boolean tryCompleteElseWatch(Completable operation, List<BenchKey> keys) {
        Op op = (Op) operation;
        if (op.isCompleted()) {
            return false; // see PurgatoryUnderTest: a no-op for an operation completed before submission
        }
        return purgatory.tryCompleteElseWatch(op, keys);
    }

    @Override
    public int checkAndComplete(BenchKey key) {
        return purgatory.checkAndComplete(key);
    }

    @Override
    public int watched() {
        return purgatory.watched();
    }

    @Override
    public int numDelayed() {
        return purgatory.numDelayed();
    }

    @Override
    public void close() {
        try {
            purgatory.shutdown(); // stops the reaper and the timer's executor (both non-daemon)
        } catch (Exception e) {
            throw new IllegalStateException("Kafka purgatory shutdown failed", e);
        }
    }

    /** The operation: a body and nothing else. */
    static final class Op extends DelayedOperation implements Completable {
        private final OpBody body;

        Op(long delayMs, OpBody body) {
            super(delayMs);
            this.body = body;
        }

        @Override
        public boolean tryComplete() {
            return body.canComplete() && forceComplete();
        }

        @Override
        public void onComplete() {
            body.completed();
        }

        @Override
        public void onExpiration() {
            body.expired();
        }
    }
}
