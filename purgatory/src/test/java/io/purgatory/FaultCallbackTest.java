package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Callbacks that throw at a random rate, on every path and every thread: the purgatory keeps
 * working, every operation is still settled exactly once with all the callbacks its outcome
 * calls for, and every exception thrown is handed to the error handler once and counted once
 * (stats and the callback-errors meter, by callback). No library thread dies of it.
 */
class FaultCallbackTest {

    private static final int THROW_PERCENT = 30;

    @Test
    void callbacks_throwAtRandomWhileThreadsCompleteCancelAndExpire_nothingLostAndEveryFailureCounted()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        RecordingMetrics metrics = new RecordingMetrics();
        RecordingHandler handler = new RecordingHandler();
        int workers = 3;
        int perWorker = 4_000;
        CountDownLatch settled = new CountDownLatch(workers * perWorker);
        ConcurrentLinkedQueue<FaultyOp> all = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<FaultyOp> actions = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger left = new AtomicInteger(workers);
        try (DelayedOperationPurgatory<FaultyOp> p = DelayedOperationPurgatory.<FaultyOp>builder("faulty")
                .timer(timer).reaperEnabled(false).shards(8).errorHandler(handler).metrics(metrics).build()) {
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                SplittableRandom rnd = new SplittableRandom(0xFA17 + w);
                work.add(() -> {
                    try {
                        for (int i = 0; i < perWorker; i++) {
                            FaultyOp op = new FaultyOp(1 + rnd.nextInt(30), rnd.split(), settled);
                            op.completable = rnd.nextInt(8) == 0;
                            all.add(op);
                            p.tryCompleteElseWatch(op, List.of("k" + rnd.nextInt(32), "j" + rnd.nextInt(8)));
                            if (rnd.nextInt(4) != 0) {
                                actions.add(op); // the rest are left to expire
                            }
                            FaultyOp next = actions.poll();
                            if (next != null) {
                                act(p, next, rnd);
                            }
                        }
                        for (FaultyOp next; (next = actions.poll()) != null; ) {
                            act(p, next, rnd);
                        }
                    } finally {
                        if (left.decrementAndGet() == 0) {
                            done.set(true);
                        }
                    }
                });
            }
            work.add(() -> {
                while (!done.get()) {
                    timer.advanceClock(1); // expiries, and their throwing callbacks, on this thread
                }
            });

            ReliabilitySupport.runConcurrently("faulty", work);
            timer.advanceClock(100);
            ReliabilitySupport.await(settled, "every operation settled");

            Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
            long[] thrown = new long[Callback.values().length];
            for (FaultyOp op : all) {
                Outcome outcome = op.outcome();
                assertThat(outcome).as("settled").isNotNull();
                outcomes.merge(outcome, 1L, Long::sum);
                assertThat(op.completes.get()).as("onComplete runs").isEqualTo(outcome == Outcome.CANCELLED ? 0 : 1);
                assertThat(op.expirations.get()).as("onExpiration runs, even after onComplete threw")
                        .isEqualTo(outcome == Outcome.EXPIRED ? 1 : 0);
                assertThat(op.cancels.get()).isEqualTo(outcome == Outcome.CANCELLED ? 1 : 0);
                for (Callback c : Callback.values()) {
                    thrown[c.ordinal()] += op.thrown.get(c.ordinal());
                }
            }
            PurgatoryStats stats = p.stats();
            long thrownTotal = 0;
            for (Callback c : Callback.values()) {
                long n = thrown[c.ordinal()];
                thrownTotal += n;
                assertThat(handler.count(c)).as("%s failures handed to the handler", c).isEqualTo(n);
                assertThat(metrics.of("faulty").source.callbackErrors(c)).as("%s failures counted", c).isEqualTo(n);
            }
            assertThat(thrownTotal).as("the run did inject failures").isPositive();
            assertThat(thrown[Callback.TRY_COMPLETE.ordinal()]).isPositive();
            assertThat(stats.callbackErrors()).isEqualTo(thrownTotal);
            assertThat(handler.unknownErrors).as("every reported error was one an operation threw").isEmpty();
            assertThat(handler.purgatoryNames).containsOnly("faulty");
            assertThat(stats.completed() + stats.completedAtOnce())
                    .isEqualTo(outcomes.getOrDefault(Outcome.COMPLETED, 0L));
            assertThat(stats.expired()).isEqualTo(outcomes.getOrDefault(Outcome.EXPIRED, 0L));
            assertThat(stats.cancelled()).isEqualTo(outcomes.getOrDefault(Outcome.CANCELLED, 0L));
            assertThat(stats.pending()).isZero();
            assertThat(stats.watched()).isZero();
            assertThat(stats.keys()).isZero();
            assertThat(timer.size()).isZero();
            p.engine().checkInvariants();
        } finally {
            timer.close();
        }
    }

    @Test
    void expirationCallbacks_throwOnTheOwnTimersThreads_everyOperationExpiresAndNoThreadIsReplaced() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        int n = 400;
        CountDownLatch settled = new CountDownLatch(n);
        Set<String> expirationThreads = ConcurrentHashMap.newKeySet();
        List<ReliabilitySupport.HookOp> ops = new ArrayList<>();
        try (DelayedOperationPurgatory<ReliabilitySupport.HookOp> p = DelayedOperationPurgatory
                .<ReliabilitySupport.HookOp>builder("throwing-expiry").errorHandler(handler).build()) {
            for (int i = 0; i < n; i++) {
                ReliabilitySupport.HookOp op = new ReliabilitySupport.HookOp(1 + i % 5);
                int index = i;
                op.completeHook = () -> {
                    expirationThreads.add(Thread.currentThread().getName());
                    if (index % 2 == 0) {
                        throw new IllegalStateException("onComplete " + index);
                    }
                };
                op.expirationHook = () -> {
                    settled.countDown();
                    if (index % 3 == 0) {
                        throw new AssertionError("onExpiration " + index); // an Error, not only exceptions
                    }
                };
                ops.add(op);
                p.tryCompleteElseWatch(op, List.of("key" + i % 10));
            }

            ReliabilitySupport.await(settled, "every expiration");

            assertThat(ops).allSatisfy(op -> {
                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(op.callbackCounts()).isEqualTo("1,1,0");
            });
            assertThat(expirationThreads).as("the same two daemon threads, none replaced after a failure")
                    .isSubsetOf("throwing-expiry-expiration", "throwing-expiry-expiration-2");
            ReliabilitySupport.awaitCondition("every failure reported",
                    () -> handler.count(Callback.ON_COMPLETE) == 200 && handler.count(Callback.ON_EXPIRATION) == 134);
            assertThat(p.stats().callbackErrors()).isEqualTo(334);
            assertThat(p.stats().expired()).isEqualTo(n);
        }
        ReliabilitySupport.assertNoLibraryThreadLeft("throwing-expiry");
    }

    private static void act(DelayedOperationPurgatory<FaultyOp> p, FaultyOp op, SplittableRandom rnd) {
        switch (rnd.nextInt(3)) {
            case 0 -> {
                op.completable = true;
                p.checkAndComplete("j" + rnd.nextInt(8));
            }
            case 1 -> op.forceComplete();
            default -> op.cancel();
        }
    }

    /** An operation whose callbacks each throw with probability THROW_PERCENT, and which counts what it threw. */
    static final class FaultyOp extends DelayedOperation {
        volatile boolean completable;
        final AtomicInteger completes = new AtomicInteger();
        final AtomicInteger expirations = new AtomicInteger();
        final AtomicInteger cancels = new AtomicInteger();
        final AtomicLongArray thrown = new AtomicLongArray(Callback.values().length);
        private final SplittableRandom rnd; // guarded by itself
        private final CountDownLatch settled;

        FaultyOp(long delayMs, SplittableRandom rnd, CountDownLatch settled) {
            super(delayMs);
            this.rnd = rnd;
            this.settled = settled;
        }

        @Override
        protected boolean tryComplete() {
            boolean fail;
            boolean early;
            synchronized (rnd) {
                fail = rnd.nextInt(100) < THROW_PERCENT;
                early = rnd.nextBoolean();
            }
            if (fail && early) {
                throwFrom(Callback.TRY_COMPLETE); // before deciding: counts as "not yet"
            }
            boolean completed = completable && forceComplete();
            if (fail) {
                throwFrom(Callback.TRY_COMPLETE); // after deciding: the completion stands
            }
            return completed;
        }

        @Override
        protected void onComplete() {
            completes.incrementAndGet();
            if (outcome() == Outcome.COMPLETED) {
                settled.countDown();
            }
            maybeThrow(Callback.ON_COMPLETE);
        }

        @Override
        protected void onExpiration() {
            expirations.incrementAndGet();
            settled.countDown();
            maybeThrow(Callback.ON_EXPIRATION);
        }

        @Override
        protected void onCancel() {
            cancels.incrementAndGet();
            settled.countDown();
            maybeThrow(Callback.ON_CANCEL);
        }

        private void maybeThrow(Callback callback) {
            boolean fail;
            synchronized (rnd) {
                fail = rnd.nextInt(100) < THROW_PERCENT;
            }
            if (fail) {
                throwFrom(callback);
            }
        }

        private void throwFrom(Callback callback) {
            thrown.incrementAndGet(callback.ordinal());
            throw new InjectedFailure(this, callback);
        }
    }

    /** The exception the operations throw, so the handler can tell them from anything else. */
    static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient DelayedOperation operation;
        final Callback callback;

        InjectedFailure(DelayedOperation operation, Callback callback) {
            super("injected failure in " + callback.methodName(), null, false, false);
            this.operation = operation;
            this.callback = callback;
        }
    }

    /** Counts the failures it is handed, by callback, and keeps any it cannot explain. */
    static final class RecordingHandler implements OperationErrorHandler {
        private final Map<Callback, LongAdder> counts = new ConcurrentHashMap<>();
        final Set<String> purgatoryNames = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<Throwable> unknownErrors = new ConcurrentLinkedQueue<>();

        @Override
        public void onError(String purgatory, DelayedOperation operation, Callback callback, Throwable error) {
            purgatoryNames.add(purgatory);
            counts.computeIfAbsent(callback, c -> new LongAdder()).increment();
            if (error instanceof InjectedFailure injected
                    && (injected.operation != operation || injected.callback != callback)) {
                unknownErrors.add(error);
            }
        }

        long count(Callback callback) {
            LongAdder a = counts.get(callback);
            return a == null ? 0 : a.sum();
        }
    }
}
