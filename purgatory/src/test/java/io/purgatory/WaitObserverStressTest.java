package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@link WaitObserver} seam (Engine N6) under racing ends: worker threads make waits and end
 * them by events, errors, checks, {@code forceComplete}, cancels and outside completions, while
 * another thread advances the {@link ManualTimer} that expires them and a third closes the
 * purgatory mid-run. A recording observer keeps the ledger: every handle it gave was ended exactly
 * once; each wait the workers made has exactly one handle, started on its submitting thread; a
 * submission refused by the close started none (or ended it failed); each handle's outcome is how
 * its wait ended as its caller sees it ({@code closed} only once the close had begun, and only for
 * the close policy's outcome); and the counts by outcome are the purgatory's stats.
 *
 * <p>The CI runs are short; the long runs are tagged {@code slow}: {@code mvn -B -ntp -pl purgatory
 * -am test -Pslow -Dtest=WaitObserverStressTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class WaitObserverStressTest {

    private static final int KEYS = 64;
    private static final int OUTSIDE = Integer.MIN_VALUE;
    /** Waits made before the run on a key no worker touches, with an hour's timeout: only the close ends them. */
    private static final int PARKED = 50;
    private static final int PARKED_KEY = -1;

    @Test
    void keyedWaits_racingEventsErrorsCancelsTimeoutsAndClose_eachWaitEndedOnceWithItsOutcome() throws Exception {
        new KeyedRun(4, 2_500, 0x0B5EL).execute();
    }

    @Test
    void operations_racingChecksForceCompletesCancelsTimeoutsAndClose_eachWaitEndedOnceWithItsOutcome()
            throws Exception {
        new OperationRun(4, 2_500, 0x0B5FL).execute();
    }

    @Test
    @Tag("slow")
    void observedWaits_longRacingRuns_eachEndedOnceWithItsOutcome() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            new KeyedRun(6, 40_000, seed).execute();
            new OperationRun(6, 40_000, seed).execute();
        }
    }

    /** What the observer was told of one wait. */
    static final class Handle {
        final WaitStart start;
        final Thread startThread = Thread.currentThread();
        final AtomicInteger ends = new AtomicInteger();
        volatile WaitOutcome outcome;
        volatile Throwable failure;
        /** Whether the close had begun when the wait ended. */
        volatile boolean afterClose;

        Handle(WaitStart start) {
            this.start = start;
        }

        @Override
        public String toString() {
            return "Handle[" + start + ", ends " + ends + ", " + outcome + (afterClose ? " after close" : "") + "]";
        }
    }

    /** The recording observer: every handle it gave, and the last one started on each thread. */
    static final class Ledger implements WaitObserver {
        final ConcurrentLinkedQueue<Handle> handles = new ConcurrentLinkedQueue<>();
        final AtomicBoolean closeBegun = new AtomicBoolean();
        /** The handle started last on each thread (a wait is started on its submitting thread). */
        private static final ThreadLocal<Handle> LAST_STARTED = new ThreadLocal<>();

        @Override
        public Object started(WaitStart start) {
            Handle handle = new Handle(start);
            handles.add(handle);
            LAST_STARTED.set(handle);
            return handle;
        }

        @Override
        public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
            Handle h = (Handle) handle;
            h.afterClose = closeBegun.get();
            h.failure = failure;
            h.outcome = outcome;
            h.ends.incrementAndGet();
        }

        /** The handle started on this thread since the last call, or null. */
        Handle take() {
            Handle handle = LAST_STARTED.get();
            LAST_STARTED.remove();
            return handle;
        }

        /** Every handle ended exactly once; the counts by outcome. */
        Map<WaitOutcome, Long> verifyEachEndedOnce() {
            Map<WaitOutcome, Long> counts = new EnumMap<>(WaitOutcome.class);
            for (WaitOutcome outcome : WaitOutcome.values()) {
                counts.put(outcome, 0L);
            }
            for (Handle handle : handles) {
                assertThat(handle.ends).as("%s ended exactly once", handle).hasValue(1);
                counts.merge(handle.outcome, 1L, Long::sum);
            }
            return counts;
        }
    }

    /** The threads of a run: the workers, one that advances the timer, one that closes mid-run. */
    private abstract static class Run {
        final ManualTimer timer = new ManualTimer();
        final Ledger ledger = new Ledger();
        final int threads;
        final int opsPerThread;
        final long seed;
        final AtomicInteger steps = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();

        Run(int threads, int opsPerThread, long seed) {
            this.threads = threads;
            this.opsPerThread = opsPerThread;
            this.seed = seed;
        }

        abstract String name();

        abstract void park();

        abstract void step(SplittableRandom rnd);

        abstract void close();

        abstract void verify();

        final void execute() throws Exception {
            for (int i = 0; i < PARKED; i++) {
                park();
            }
            AtomicBoolean workersDone = new AtomicBoolean();
            AtomicInteger workersLeft = new AtomicInteger(threads);
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom rnd = new SplittableRandom(seed * 1_000 + t);
                work.add(() -> {
                    try {
                        for (int i = 0; i < opsPerThread; i++) {
                            step(rnd);
                            steps.incrementAndGet();
                        }
                    } finally {
                        if (workersLeft.decrementAndGet() == 0) {
                            workersDone.set(true);
                        }
                    }
                });
            }
            work.add(() -> { // the only thread that advances the timer
                while (!workersDone.get()) {
                    timer.advanceClock(3);
                    Thread.yield();
                }
            });
            work.add(() -> { // closes once the workers are three quarters through, racing their ends
                while (steps.get() < threads * opsPerThread / 4 * 3 && !workersDone.get()) {
                    Thread.yield();
                }
                ledger.closeBegun.set(true);
                close();
            });
            ReliabilitySupport.runConcurrently(name(), work);
            verify();
        }

        /** The handle of a wait just made on this thread: exactly one, started here. */
        final Handle handleOfWaitJustMade() {
            Handle handle = ledger.take();
            assertThat(handle).as("a handle for the wait just made").isNotNull();
            assertThat(handle.startThread).isSameAs(Thread.currentThread());
            return handle;
        }

        /** A submission refused (the close won): it started no wait, or ended the one it started, failed. */
        final void refusedSubmission(Throwable refusal) {
            assertThat(refusal).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            Handle handle = ledger.take();
            if (handle != null) {
                assertThat(handle.outcome).as("%s", handle).isEqualTo(WaitOutcome.FAILED);
            }
            refused.incrementAndGet();
        }

        /** {@code closed}, only after the close began and for the close policy's outcome; else {@code expected}. */
        static void assertOutcome(Handle handle, WaitOutcome expected, boolean closeOutcome, Object wait) {
            if (handle.outcome == WaitOutcome.CLOSED) {
                assertThat(handle.afterClose).as("%s of %s: closed before the close", handle, wait).isTrue();
                assertThat(closeOutcome).as("%s of %s: closed, by another outcome than the policy's", handle, wait)
                        .isTrue();
            } else {
                assertThat(handle.outcome).as("%s of %s", handle, wait).isEqualTo(expected);
            }
        }
    }

    /** Keyed waits: awaits, complete, completeExceptionally, cancel and complete from outside, timeouts, close. */
    private static final class KeyedRun extends Run {
        private final KeyedWaits<Integer, Integer> waits;
        private final ConcurrentLinkedQueue<Wait> all = new ConcurrentLinkedQueue<>();
        private final ConcurrentLinkedDeque<Wait> targets = new ConcurrentLinkedDeque<>();
        private final AtomicInteger values = new AtomicInteger();

        /** A wait the workers made, and its handle. */
        record Wait(CompletableFuture<Integer> future, Handle handle) {
        }

        KeyedRun(int threads, int opsPerThread, long seed) {
            super(threads, opsPerThread, seed);
            waits = KeyedWaits.builder(name()).timer(timer).shards(8).observer(ledger).build();
        }

        @Override
        String name() {
            return "observed-keyed-" + seed;
        }

        @Override
        void park() {
            all.add(new Wait(waits.await(PARKED_KEY, Duration.ofHours(1)), handleOfWaitJustMade()));
        }

        @Override
        void step(SplittableRandom rnd) {
            int r = rnd.nextInt(100);
            int key = rnd.nextInt(KEYS);
            if (r < 40) {
                Duration timeout = Duration.ofMillis(rnd.nextInt(3) == 0 ? TimeUnit.HOURS.toMillis(1)
                        : 1 + rnd.nextInt(20));
                CompletableFuture<Integer> future = rnd.nextBoolean() ? waits.await(key, timeout)
                        : waits.onAny(List.of(key, (key + 1 + rnd.nextInt(KEYS - 1)) % KEYS)).await(timeout);
                if (KeyedWaits.isWait(future)) {
                    Wait wait = new Wait(future, handleOfWaitJustMade());
                    all.add(wait);
                    targets.add(wait);
                } else { // refused: a future failed as closed
                    refusedSubmission(future.handle((v, e) -> e).join());
                }
            } else if (r < 60) {
                waits.complete(key, key + KEYS * values.incrementAndGet());
            } else if (r < 65) {
                waits.completeExceptionally(key, new IllegalArgumentException("refused " + key));
            } else if (r < 80) {
                Thread.yield(); // time for the timer's thread
            } else {
                Wait target = targets.pollLast();
                if (target != null) {
                    if (r < 93) {
                        target.future.cancel(rnd.nextBoolean());
                    } else {
                        target.future.complete(OUTSIDE);
                    }
                }
            }
        }

        @Override
        void close() {
            waits.close();
        }

        @Override
        void verify() {
            Map<WaitOutcome, Long> counts = ledger.verifyEachEndedOnce();
            assertThat(ledger.handles).as("a handle per wait made").hasSize(all.size());
            for (Wait wait : all) {
                assertThat(wait.future).as("%s", wait).isDone();
                WaitOutcome expected = expected(wait);
                assertOutcome(wait.handle, expected, expected == WaitOutcome.EXPIRED, wait); // policy EXPIRE
                if (wait.handle.outcome == WaitOutcome.FAILED) {
                    assertThat(wait.handle.failure).isSameAs(failure(wait.future));
                }
            }
            PurgatoryStats stats = waits.stats();
            assertThat(counts.get(WaitOutcome.COMPLETED) + counts.get(WaitOutcome.FAILED)).as("%s", stats)
                    .isEqualTo(stats.completed());
            assertThat(counts.get(WaitOutcome.COMPLETED_AT_ONCE)).isZero().isEqualTo(stats.completedAtOnce());
            assertThat(counts.get(WaitOutcome.CLOSED)).as("the parked waits at least").isGreaterThanOrEqualTo(PARKED);
            assertThat(counts.get(WaitOutcome.EXPIRED) + counts.get(WaitOutcome.CLOSED)).isEqualTo(stats.expired());
            assertThat(counts.get(WaitOutcome.CANCELLED)).isEqualTo(stats.cancelled());
            assertThat(stats.pending()).isZero();
            waits.engine().checkInvariants();
            System.out.printf("%s: %,d waits, %s, %,d refused by the close%n", name(), all.size(), counts,
                    refused.get());
        }

        /** The outcome the wait's future shows; a closed wait shows as expired (policy EXPIRE). */
        private static WaitOutcome expected(Wait wait) {
            CompletableFuture<Integer> future = wait.future;
            if (future.isCancelled()) {
                return WaitOutcome.CANCELLED;
            }
            Throwable failure = failure(future);
            if (failure == null) {
                return future.join() == OUTSIDE ? WaitOutcome.CANCELLED : WaitOutcome.COMPLETED;
            }
            if (failure instanceof WaitTimeoutException timeout) {
                if (wait.handle.outcome == WaitOutcome.CLOSED) {
                    assertThat(timeout.closed()).as("%s: closed, and its timeout says so", wait).isTrue();
                }
                return WaitOutcome.EXPIRED;
            }
            assertThat(failure).hasMessageStartingWith("refused ");
            return WaitOutcome.FAILED;
        }

        private static Throwable failure(CompletableFuture<Integer> future) {
            try {
                future.join();
                return null;
            } catch (CompletionException e) {
                return e.getCause();
            }
        }
    }

    /** Operations: submissions (some complete at once), checks, forceComplete, cancels, timeouts, close. */
    private static final class OperationRun extends Run {
        private final DelayedOperationPurgatory<MockOperation> purgatory;
        private final ConcurrentLinkedQueue<Submitted> all = new ConcurrentLinkedQueue<>();
        private final ConcurrentLinkedDeque<Submitted> targets = new ConcurrentLinkedDeque<>();

        /** An operation the workers submitted, on its keys, and its handle. */
        record Submitted(MockOperation op, List<Integer> keys, Handle handle) {
        }

        OperationRun(int threads, int opsPerThread, long seed) {
            super(threads, opsPerThread, seed);
            purgatory = DelayedOperationPurgatory.<MockOperation>builder(name()).timer(timer).shards(8)
                    .closePolicy(ClosePolicy.CANCEL).observer(ledger).build();
        }

        @Override
        String name() {
            return "observed-operations-" + seed;
        }

        @Override
        void park() {
            MockOperation op = new MockOperation(TimeUnit.HOURS.toMillis(1));
            purgatory.tryCompleteElseWatch(op, List.of(PARKED_KEY));
            all.add(new Submitted(op, List.of(PARKED_KEY), handleOfWaitJustMade()));
        }

        @Override
        void step(SplittableRandom rnd) {
            int r = rnd.nextInt(100);
            int key = rnd.nextInt(KEYS);
            if (r < 40) {
                MockOperation op = new MockOperation(rnd.nextInt(3) == 0 ? TimeUnit.HOURS.toMillis(1)
                        : 1 + rnd.nextInt(20));
                op.completable = rnd.nextInt(10) == 0;
                List<Integer> keys = rnd.nextBoolean() ? List.of(key)
                        : List.of(key, (key + 1 + rnd.nextInt(KEYS - 1)) % KEYS);
                try {
                    purgatory.tryCompleteElseWatch(op, keys);
                    Submitted submitted = new Submitted(op, keys, handleOfWaitJustMade());
                    all.add(submitted);
                    targets.add(submitted);
                } catch (IllegalStateException closed) {
                    refusedSubmission(closed);
                }
            } else if (r < 55) {
                Submitted target = targets.pollLast();
                if (target != null) {
                    target.op.completable = true;
                    purgatory.checkAndComplete(target.keys.get(rnd.nextInt(target.keys.size())));
                }
            } else if (r < 65) {
                purgatory.checkAndComplete(key);
            } else if (r < 70) {
                Submitted target = targets.pollLast();
                if (target != null) {
                    target.op.forceComplete();
                }
            } else if (r < 85) {
                Thread.yield(); // time for the timer's thread
            } else if (r < 95) {
                Submitted target = targets.pollLast();
                if (target != null) {
                    target.op.cancel();
                }
            } else {
                purgatory.cancelForKey(key);
            }
        }

        @Override
        void close() {
            purgatory.close();
        }

        @Override
        void verify() {
            Map<WaitOutcome, Long> counts = ledger.verifyEachEndedOnce();
            assertThat(ledger.handles).as("a handle per operation submitted").hasSize(all.size());
            for (Submitted submitted : all) {
                MockOperation op = submitted.op;
                assertThat(op.onCompleteCalls.get() + op.onExpirationCalls.get() + op.onCancelCalls.get())
                        .as("%s: one outcome's callbacks", submitted).isGreaterThanOrEqualTo(1);
                Handle handle = submitted.handle;
                switch (op.outcome()) {
                    case COMPLETED -> assertThat(handle.outcome).as("%s", handle)
                            .isIn(WaitOutcome.COMPLETED, WaitOutcome.COMPLETED_AT_ONCE);
                    case EXPIRED -> assertOutcome(handle, WaitOutcome.EXPIRED, false, submitted);
                    case CANCELLED -> assertOutcome(handle, WaitOutcome.CANCELLED, true, submitted);
                    default -> throw new AssertionError("not settled: " + submitted);
                }
                assertThat(handle.failure).isNull();
            }
            PurgatoryStats stats = purgatory.stats();
            assertThat(counts.get(WaitOutcome.COMPLETED)).as("%s", stats).isEqualTo(stats.completed());
            assertThat(counts.get(WaitOutcome.COMPLETED_AT_ONCE)).isEqualTo(stats.completedAtOnce());
            assertThat(counts.get(WaitOutcome.EXPIRED)).isEqualTo(stats.expired());
            assertThat(counts.get(WaitOutcome.CANCELLED) + counts.get(WaitOutcome.CLOSED))
                    .isEqualTo(stats.cancelled());
            assertThat(counts.get(WaitOutcome.FAILED)).isZero();
            assertThat(counts.get(WaitOutcome.CLOSED)).as("the parked operations at least")
                    .isGreaterThanOrEqualTo(PARKED);
            assertThat(purgatory.numDelayed()).isZero();
            purgatory.engine().checkInvariants();
            System.out.printf("%s: %,d operations, %s, %,d refused by the close%n", name(), all.size(), counts,
                    refused.get());
        }
    }
}
