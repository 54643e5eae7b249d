package io.purgatory.bench;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PendingOperation;
import io.purgatory.PendingOrder;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * This project's purgatory, with its defaults; or, with a back-pressure bound, on a timer of its
 * own built as the purgatory builds its own (default geometry, two expiration threads) plus
 * {@link SystemTimer.Builder#backPressure}: what {@code PurgatoryBuilder.backPressure} does, with the
 * timer in reach for its wait counters. The system
 * property {@value #EXPIRATION_THREADS} gives the purgatory an expiration executor of that many
 * threads instead of its default two (to measure the setting; ours only).
 */
final class OursPurgatory implements PurgatoryUnderTest {

    static final String EXPIRATION_THREADS = "bench.ours.expirationThreads";

    private final DelayedOperationPurgatory<Op> purgatory;
    private final SystemTimer timer;
    private final ExecutorService expirations;

    OursPurgatory(String name) {
        int threads = Integer.getInteger(EXPIRATION_THREADS, 0);
        this.timer = null;
        if (threads > 0) {
            this.expirations = Executors.newFixedThreadPool(threads, Threads.daemonFactory(name + "-expiration"));
            this.purgatory = DelayedOperationPurgatory.builder(name).expirationExecutor(expirations).build();
        } else {
            this.expirations = null;
            this.purgatory = new DelayedOperationPurgatory<>(name);
        }
    }

    OursPurgatory(String name, Duration backPressure) {
        this.expirations = Executors.newFixedThreadPool(2, Threads.daemonFactory(name + "-expiration"));
        this.timer = SystemTimer.builder(name).executor(expirations)
                .settings(TimerSettings.DEFAULT.withBackPressure(backPressure)).build();
        this.purgatory = DelayedOperationPurgatory.builder(name).timer(timer).build();
    }

    /** The timer's back-pressure counters: adds that waited, and their total wait in ns; zeros without it. */
    long[] backPressureWaits() {
        return timer == null ? new long[2]
                : new long[] {timer.backPressureWaits(), timer.backPressureWaited().toNanos()};
    }

    /** The operators' list: at most {@code limit} pending operations in {@code order}. */
    List<PendingOperation> listPending(int limit, PendingOrder order) {
        return purgatory.listPending(limit, order);
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
        if (timer != null) {
            timer.close();
        }
        if (expirations != null) {
            expirations.shutdown();
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
