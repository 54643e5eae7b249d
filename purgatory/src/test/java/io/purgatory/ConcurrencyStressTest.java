package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads, exact accounting: every operation settled exactly once with the right outcome,
 * no lost wake-up, no lock-order deadlock. The CI versions are short; {@code @Tag("slow")}
 * versions run with {@code -Pslow}.
 */
class ConcurrencyStressTest {

    private static final long NEVER_MS = TimeUnit.HOURS.toMillis(1);

    /** How a stress operation is meant to be settled. */
    enum Path { AT_ONCE, BY_KEY, FORCE, CANCEL, EXPIRE }

    // ---- (a) many threads, random paths, exact ledger ----

    @Test
    void stress_manyThreadsRandomPathsOnSharedKeys_everyOperationSettledExactlyOnceAsIntended() throws Exception {
        stress(4, 2_500, 12, 0x5EED);
    }

    @Test
    @Tag("slow")
    void stress_longRun_everyOperationSettledExactlyOnceAsIntended() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            stress(8, 50_000, 24, seed);
        }
    }

    private static void stress(int threads, int opsPerThread, int keySpace, long seed) throws Exception {
        int total = threads * opsPerThread;
        CountDownLatch finished = new CountDownLatch(total);
        RecordingMetrics metrics = new RecordingMetrics();
        ConcurrentLinkedQueue<StressOp> all = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<StressOp> actions = new ConcurrentLinkedQueue<>();
        AtomicInteger completedByChecks = new AtomicInteger();
        Path[] paths = Path.values();
        try (DelayedOperationPurgatory<StressOp> p = DelayedOperationPurgatory.<StressOp>builder("stress")
                .shards(16).metrics(metrics).build()) {
            List<TestThreads.Work> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom rnd = new SplittableRandom(seed * 1_000 + t);
                work.add(() -> {
                    for (int i = 0; i < opsPerThread; i++) {
                        Path path = paths[rnd.nextInt(paths.length)];
                        List<String> keys = randomKeys(rnd, keySpace);
                        long delayMs = path == Path.EXPIRE ? 1 + rnd.nextInt(20) : NEVER_MS;
                        StressOp op = new StressOp(path, delayMs, keys, finished);
                        all.add(op);
                        op.completable = path == Path.AT_ONCE;
                        boolean completedHere = p.tryCompleteElseWatch(op, keys);
                        assertThat(completedHere).as("%s completed by its submission", path)
                                .isEqualTo(path == Path.AT_ONCE);
                        if (path == Path.BY_KEY || path == Path.FORCE || path == Path.CANCEL) {
                            actions.add(op); // settled later, perhaps by another thread
                        }
                        StressOp next = actions.poll();
                        if (next != null) {
                            act(p, next, rnd, completedByChecks);
                        }
                    }
                    for (StressOp next; (next = actions.poll()) != null; ) {
                        act(p, next, rnd, completedByChecks);
                    }
                });
            }

            TestThreads.runConcurrently("stress", work);
            TestThreads.await(finished, "every operation's last callback");

            Map<Path, Long> ledger = new EnumMap<>(Path.class);
            for (Path path : paths) {
                ledger.put(path, 0L);
            }
            for (StressOp op : all) {
                ledger.merge(op.path, 1L, Long::sum);
                assertSettledAsIntended(op);
            }
            assertThat(all).hasSize(total);
            assertThat((long) completedByChecks.get()).isEqualTo(ledger.get(Path.BY_KEY));
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThat(p.watchedKeys()).isZero();
            assertThat(EngineInternals.timer(p.engine().runtime()).size()).isZero();
            p.engine().checkInvariants();
            PurgatoryStats stats = p.stats();
            assertThat(stats.completedAtOnce()).isEqualTo(ledger.get(Path.AT_ONCE));
            assertThat(stats.completed()).isEqualTo(ledger.get(Path.BY_KEY) + ledger.get(Path.FORCE));
            assertThat(stats.cancelled()).isEqualTo(ledger.get(Path.CANCEL));
            assertThat(stats.expired()).isEqualTo(ledger.get(Path.EXPIRE));
            assertThat(stats.callbackErrors()).isZero();
            assertThat(stats.rejected()).isZero();
            assertThat(metrics.of("stress").count(Outcome.COMPLETED)).isEqualTo(stats.completed());
            assertThat(metrics.of("stress").count(Outcome.CANCELLED)).isEqualTo(stats.cancelled());
            assertThat(metrics.of("stress").count(Outcome.EXPIRED)).isEqualTo(stats.expired());
        }
    }

    private static void act(DelayedOperationPurgatory<StressOp> p, StressOp op, SplittableRandom rnd,
                            AtomicInteger completedByChecks) {
        switch (op.path) {
            case BY_KEY -> {
                op.completable = true;
                completedByChecks.addAndGet(p.checkAndComplete(op.keys.get(rnd.nextInt(op.keys.size()))));
            }
            case FORCE -> assertThat(op.forceComplete()).as("forceComplete of a pending op").isTrue();
            case CANCEL -> assertThat(op.cancel()).as("cancel of a pending op").isTrue();
            default -> throw new AssertionError(op.path);
        }
    }

    private static void assertSettledAsIntended(StressOp op) {
        switch (op.path) {
            case AT_ONCE, BY_KEY, FORCE -> {
                assertThat(op.outcome()).as(op.path.name()).isEqualTo(Outcome.COMPLETED);
                assertThat(op.callbacks()).as(op.path.name()).containsExactly("onComplete");
            }
            case CANCEL -> {
                assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
                assertThat(op.callbacks()).containsExactly("onCancel");
            }
            case EXPIRE -> {
                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
            }
        }
        assertThat(op.triedConcurrently).as("two tries at once").isFalse();
        assertThat(op.callbackUnderLockOrDuringTry).as("callback under the lock or during tryComplete").isFalse();
    }

    private static List<String> randomKeys(SplittableRandom rnd, int keySpace) {
        int n = 1 + rnd.nextInt(3);
        List<String> keys = new ArrayList<>(n);
        while (keys.size() < n) {
            String key = "s" + rnd.nextInt(keySpace);
            if (!keys.contains(key)) {
                keys.add(key);
            }
        }
        return keys;
    }


    /** A mock that knows how it is meant to be settled. */
    static final class StressOp extends MockOperation {
        final Path path;
        final List<String> keys;

        StressOp(Path path, long delayMs, List<String> keys, CountDownLatch finished) {
            super(delayMs, finished);
            this.path = path;
            this.keys = keys;
        }
    }

    // ---- (b) no lost wake-up ----

    @Test
    void checkAndComplete_racingTheSubmissionOfItsOperation_neverLosesTheWakeUp() throws Exception {
        noLostWakeUp(5_000);
    }

    @Test
    @Tag("slow")
    void checkAndComplete_racingTheSubmissionLongRun_neverLosesTheWakeUp() throws Exception {
        noLostWakeUp(300_000);
    }

    private static void noLostWakeUp(int iterations) throws Exception {
        ManualTimer timer = new ManualTimer(); // never advanced: an operation can only complete
        try (DelayedOperationPurgatory<PlainFlagOp> p = DelayedOperationPurgatory.<PlainFlagOp>builder("wake-up")
                .timer(timer).reaperEnabled(false).build()) {
            List<PlainFlagOp> ops = new ArrayList<>(iterations);
            for (int i = 0; i < iterations; i++) {
                ops.add(new PlainFlagOp());
            }
            CyclicBarrier start = new CyclicBarrier(2);
            AtomicInteger byCheck = new AtomicInteger();
            AtomicInteger bySubmission = new AtomicInteger();

            TestThreads.runConcurrently("wake-up", List.of(
                    () -> {
                        for (int i = 0; i < iterations; i++) {
                            start.await(TestThreads.BOUND_SECONDS, TimeUnit.SECONDS);
                            spin(i % 7);
                            ops.get(i).ready = true; // the state change (a plain write)...
                            byCheck.addAndGet(p.checkAndComplete("b" + i % 4)); // ...then the event
                        }
                    },
                    () -> {
                        for (int i = 0; i < iterations; i++) {
                            start.await(TestThreads.BOUND_SECONDS, TimeUnit.SECONDS);
                            spin(i % 5);
                            if (p.tryCompleteElseWatch(ops.get(i), List.of("a" + i % 4, "b" + i % 4))) {
                                bySubmission.incrementAndGet();
                            }
                        }
                    }));

            for (int i = 0; i < iterations; i++) {
                PlainFlagOp op = ops.get(i);
                assertThat(op.outcome()).as("op %d", i).isEqualTo(Outcome.COMPLETED);
                assertThat(op.onCompleteCalls).as("op %d", i).hasValue(1);
            }
            assertThat(byCheck.get() + bySubmission.get()).isEqualTo(iterations);
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThat(p.watchedKeys()).isZero();
            p.engine().checkInvariants();
        } finally {
            timer.close();
        }
    }

    /**
     * Completes once {@code ready} is set. The field is plain on purpose: the purgatory promises
     * that actions before checkAndComplete happen-before the tryComplete calls it makes.
     */
    static final class PlainFlagOp extends DelayedOperation {
        boolean ready;
        final AtomicInteger onCompleteCalls = new AtomicInteger();

        PlainFlagOp() {
            super(NEVER_MS);
        }

        @Override
        protected boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        protected void onComplete() {
            onCompleteCalls.incrementAndGet();
        }

        @Override
        protected void onExpiration() {
            throw new AssertionError("never expires");
        }
    }

    // ---- (c) lock order: onComplete calling checkAndComplete across keys ----

    @Test
    void onComplete_checkingEachOthersKeysFromTwoThreads_neverDeadlocks() throws Exception {
        crossCompletion(3_000);
    }

    @Test
    @Tag("slow")
    void onComplete_checkingEachOthersKeysLongRun_neverDeadlocks() throws Exception {
        crossCompletion(200_000);
    }

    private static void crossCompletion(int iterations) throws Exception {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("lock-order")
                .shards(4).timer(timer).reaperEnabled(false).build()) {
            List<MockOperation> settledOps = new ArrayList<>();
            MockOperation[] current = new MockOperation[3]; // A on keyA, B on keyB, C on both (never completable)
            int[] round = {-1};
            CyclicBarrier barrier = new CyclicBarrier(2, () -> {
                if (current[2] != null) {
                    current[2].cancel();
                }
                int i = ++round[0];
                if (i == iterations) {
                    return;
                }
                String keyA = "A" + i % 16;
                String keyB = "B" + i % 16;
                current[0] = new CrossOp(p, keyB);
                current[1] = new CrossOp(p, keyA);
                current[2] = new MockOperation(NEVER_MS) {
                    @Override
                    public boolean tryComplete() {
                        Thread.yield(); // hold the monitor a little longer
                        return super.tryComplete();
                    }
                };
                p.tryCompleteElseWatch(current[0], List.of(keyA));
                p.tryCompleteElseWatch(current[1], List.of(keyB));
                p.tryCompleteElseWatch(current[2], List.of(keyA, keyB));
                current[0].completable = true;
                current[1].completable = true;
                settledOps.add(current[0]);
                settledOps.add(current[1]);
            });

            TestThreads.runConcurrently("lock-order", List.of(
                    () -> crossWorker(barrier, current, 0, "A", iterations),
                    () -> crossWorker(barrier, current, 1, "B", iterations)));

            assertThat(settledOps).hasSize(2 * iterations).allSatisfy(op -> {
                assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
                assertThat(op.onCompleteCalls).hasValue(1);
                assertThat(op.callbackUnderLockOrDuringTry).isFalse();
            });
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            p.engine().checkInvariants();
        } finally {
            timer.close();
        }
    }

    private static void crossWorker(CyclicBarrier barrier, MockOperation[] current, int mine, String keyPrefix,
                                    int iterations) throws Exception {
        for (int i = 0; i < iterations; i++) {
            barrier.await(TestThreads.BOUND_SECONDS, TimeUnit.SECONDS);
            MockOperation op = current[mine];
            if (i % 2 == 0) {
                ((CrossOp) op).purgatory.checkAndComplete(keyPrefix + i % 16);
            } else {
                op.forceComplete();
            }
        }
        barrier.await(TestThreads.BOUND_SECONDS, TimeUnit.SECONDS); // lets the barrier action cancel the last C
    }

    /** An operation whose onComplete checks another key of the same purgatory. */
    static final class CrossOp extends MockOperation {
        final DelayedOperationPurgatory<MockOperation> purgatory;
        private final String otherKey;

        CrossOp(DelayedOperationPurgatory<MockOperation> purgatory, String otherKey) {
            super(NEVER_MS);
            this.purgatory = purgatory;
            this.otherKey = otherKey;
        }

        @Override
        public void onComplete() {
            super.onComplete();
            purgatory.checkAndComplete(otherKey);
        }
    }

    // ---- expiry racing tryComplete on a real timer ----

    @Test
    void expiry_racingTryCompleteOnASystemTimer_neverOverlapsAndSettlesOnce() throws Exception {
        expiryVersusTries(1_000);
    }

    @Test
    @Tag("slow")
    void expiry_racingTryCompleteLongRun_neverOverlapsAndSettlesOnce() throws Exception {
        expiryVersusTries(50_000);
    }

    private static void expiryVersusTries(int n) throws Exception {
        CountDownLatch finished = new CountDownLatch(n);
        List<MockOperation> ops = new ArrayList<>();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("hot")
                .build()) {
            TestThreads.runConcurrently("expiry-vs-tries", List.of(
                    () -> {
                        for (int i = 0; i < n; i++) {
                            MockOperation op = new MockOperation(1 + i % 3, finished) {
                                @Override
                                public boolean tryComplete() {
                                    Thread.yield();
                                    return super.tryComplete();
                                }
                            };
                            synchronized (ops) {
                                ops.add(op);
                            }
                            p.tryCompleteElseWatch(op, List.of("hot"));
                        }
                    },
                    () -> {
                        while (finished.getCount() > 0) {
                            p.checkAndComplete("hot");
                        }
                    }));

            TestThreads.await(finished, "every expiry");
            synchronized (ops) {
                assertThat(ops).hasSize(n).allSatisfy(op -> {
                    assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
                    assertThat(op.callbackUnderLockOrDuringTry).isFalse();
                    assertThat(op.triedConcurrently).isFalse();
                });
            }
            assertThat(p.stats().expired()).isEqualTo(n);
            assertThat(p.watched()).isZero();
            p.engine().checkInvariants();
        }
    }

    // ---- cancel, forceComplete and expiry racing ----

    @Test
    @Tag("slow")
    void cancelForceCompleteAndExpiry_longRun_settleEachOperationExactlyOnce() throws Exception {
        for (int i = 0; i < 5; i++) {
            CancellationTest.raceCancelForceAndExpiry(50_000);
        }
    }

    private static void spin(int n) {
        for (int i = 0; i < n * 10; i++) {
            Thread.onSpinWait();
        }
    }
}
