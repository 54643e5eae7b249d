package io.purgatory.bench;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.util.List;

/** This project's purgatory, with its defaults. */
final class OursPurgatory implements PurgatoryUnderTest {

    private final DelayedOperationPurgatory<Op> purgatory;

    OursPurgatory(String name) {
        this.purgatory = new DelayedOperationPurgatory<>(name);
    }

    @Override
    public Impl impl() {
        return Impl.OURS;
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
        try {
            return purgatory.tryCompleteElseWatch(op, keys);
        } catch (IllegalStateException settled) {
            if (op.isCompleted()) {
                return false; // completed by another thread since the check above
            }
            throw settled;
        }
    }

    @Override
    public int checkAndComplete(BenchKey key) {
        return purgatory.checkAndComplete(key);
    }

    @Override
    public boolean tryCompleteElseWatchAt(Completable operation, BenchKey key, long position) {
        return purgatory.tryCompleteElseWatch((Op) operation, key, position);
    }

    @Override
    public boolean tryCompleteElseWatchAt(Completable operation, List<BenchKey> keys, long[] positions) {
        return purgatory.tryCompleteElseWatch((Op) operation, keys, positions);
    }

    @Override
    public int checkAndComplete(BenchKey key, long position) {
        return purgatory.checkAndComplete(key, position);
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
        purgatory.close();
    }

    /** The operation: a body and nothing else. */
    static final class Op extends DelayedOperation implements Completable {
        private final OpBody body;

        Op(long delayMs, OpBody body) {
            super(delayMs);
            this.body = body;
        }

        @Override
        protected boolean tryComplete() {
            return body.canComplete() && forceComplete();
        }

        @Override
        protected void onComplete() {
            body.completed();
        }

        @Override
        protected void onExpiration() {
            body.expired();
        }
    }
}
