package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A randomized stress run against a shadow ledger. Worker threads submit operations with a
 * fate (completed at once, completed by a key check, forceComplete, cancel, cancelForKey on a
 * private key, or left to expire) on 1 to 4 shared keys, and act on each other's operations
 * while the timer expires them concurrently; the ledger records what every call returned. After
 * each round, in quiescence: every operation settled exactly once, with the outcome the ledger
 * allows (an action that returned false lost to the expiry, and nothing else); onExpiration only
 * for expired ones and never before the deadline; counters, meters and gauges exact; watch lists
 * empty. After close: no library thread left, the sampled operations collected, heap back near
 * its baseline.
 *
 * <p>The CI runs take about {@value #CI_SECONDS} s each. The soak, tagged {@code slow}, runs for
 * {@code -Dpurgatory.soak.seconds=N} (default 120) per timer kind:
 * {@code mvn -B -ntp -pl purgatory test -Pslow -Dtest=ReliabilityStressTest -Dpurgatory.soak.seconds=600}.
 */
class ReliabilityStressTest {

    private static final long CI_SECONDS = 2;
    private static final int SHARED_KEYS = 64;

    /** How an operation is meant to be settled. */
    enum Fate { AT_ONCE, BY_KEY, FORCE, CANCEL, CANCEL_BY_KEY, EXPIRE }

    @Test
    void stress_manualTimerAdvancedByARacingThread_everyOperationSettledOnceAsTheLedgerAllows() throws Exception {
        new Run("reliability-manual", true, 3, 10_000, TimeUnit.SECONDS.toNanos(CI_SECONDS)).execute();
    }

    @Test
    void stress_ownTimerReaperAndExpirationThreads_everyOperationSettledOnceAndNothingLeftAfterClose()
            throws Exception {
        new Run("reliability-own", false, 2, 5_000, TimeUnit.SECONDS.toNanos(CI_SECONDS)).execute();
    }

    @Test
    @Tag("slow")
    void soak_bothTimerKinds_everyOperationSettledOnceAndNothingLeftAfterClose() throws Exception {
        long nanos = TimeUnit.SECONDS.toNanos(Long.getLong("purgatory.soak.seconds", 120));
        new Run("soak-manual", true, 3, 20_000, nanos).execute();
        new Run("soak-own", false, 2, 10_000, nanos).execute();
    }

    /** One stress run: rounds of concurrent work, each verified against the ledger in quiescence. */
    private static final class Run {
        private final String name;
        private final boolean manual;
        private final int workers;
        private final int opsPerWorker;
        private final long budgetNanos;
        private final Map<Outcome, Long> settledTotals = new EnumMap<>(Outcome.class);
        private long atOnceTotal;
        private long operations;
        private int rounds;

        Run(String name, boolean manual, int workers, int opsPerWorker, long budgetNanos) {
            this.name = name;
            this.manual = manual;
            this.workers = workers;
            this.opsPerWorker = opsPerWorker;
            this.budgetNanos = budgetNanos;
            for (Outcome o : Outcome.values()) {
                settledTotals.put(o, 0L);
            }
        }

        void execute() throws Exception {
            long baselineHeap = ReliabilitySupport.usedHeapAfterGc();

            List<WeakReference<LedgerOp>> sample = runRoundsThenClose();

            ReliabilitySupport.assertNoLibraryThreadLeft(name);
            assertThat(sample).isNotEmpty().allSatisfy(ref ->
                    assertThat(ReliabilitySupport.isCollected(ref)).as("a settled operation is collectable").isTrue());
            ReliabilitySupport.assertHeapBackNear(baselineHeap);
            assertThat(operations).isGreaterThan(0);
            System.out.printf("%s: %,d operations in %d rounds, settled %s (%,d completed at once)%n",
                    name, operations, rounds, settledTotals, atOnceTotal);
        }

        /** Runs rounds until the budget is spent (at least two), then closes; returns a sample of the operations. */
        private List<WeakReference<LedgerOp>> runRoundsThenClose() throws Exception {
            List<WeakReference<LedgerOp>> sample = new ArrayList<>();
            ManualTimer manualTimer = manual ? new ManualTimer() : null;
            RecordingMetrics metrics = new RecordingMetrics();
            PurgatoryBuilder<LedgerOp> builder = DelayedOperationPurgatory.<LedgerOp>builder(name)
                    .shards(16).metrics(metrics);
            if (manual) {
                builder.timer(manualTimer).reaperEnabled(false);
            }
            DelayedOperationPurgatory<LedgerOp> purgatory = builder.build();
            Clock clock = manual ? manualTimer.clock() : Clock.system();
            long start = System.nanoTime();
            int round = 0;
            do {
                sample.addAll(runRound(purgatory, manualTimer, clock, round++));
            } while (System.nanoTime() - start < budgetNanos || round < 2);
            rounds = round;
            assertThat(metrics.of(purgatory.name()).count(Outcome.EXPIRED))
                    .isEqualTo(settledTotals.get(Outcome.EXPIRED));

            purgatory.close();
            if (manualTimer != null) {
                manualTimer.close();
            }
            assertThat(purgatory.stats().pending()).isZero();
            return sample;
        }

        /** One round, verified in quiescence; returns weak references to a sample of its operations. */
        private List<WeakReference<LedgerOp>> runRound(DelayedOperationPurgatory<LedgerOp> purgatory,
                                                       ManualTimer timer, Clock clock, int round) throws Exception {
            int roundSize = workers * opsPerWorker;
            CountDownLatch settled = new CountDownLatch(roundSize);
            ConcurrentLinkedQueue<LedgerOp> all = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<LedgerOp> actions = new ConcurrentLinkedQueue<>();
            LongAdder completedByChecks = new LongAdder();
            LongAdder cancelledByKey = new LongAdder();
            AtomicLong submitted = new AtomicLong();
            AtomicBoolean workersDone = new AtomicBoolean();
            AtomicInteger workersLeft = new AtomicInteger(workers);
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                SplittableRandom rnd = new SplittableRandom(round * 31L + w);
                work.add(() -> {
                    try {
                        for (int i = 0; i < opsPerWorker; i++) {
                            LedgerOp op = newOp(rnd, clock, settled);
                            all.add(op);
                            op.submittedNanos = clock.nanoTime();
                            op.submitReturned = purgatory.tryCompleteElseWatch(op, op.keys);
                            submitted.incrementAndGet();
                            if (op.fate != Fate.AT_ONCE && op.fate != Fate.EXPIRE) {
                                actions.add(op);
                            }
                            LedgerOp next = actions.poll();
                            if (next != null) {
                                act(purgatory, next, rnd, completedByChecks, cancelledByKey);
                            }
                        }
                        for (LedgerOp next; (next = actions.poll()) != null; ) {
                            act(purgatory, next, rnd, completedByChecks, cancelledByKey);
                        }
                    } finally {
                        if (workersLeft.decrementAndGet() == 0) {
                            workersDone.set(true);
                        }
                    }
                });
            }
            if (timer != null) {
                work.add(() -> { // expiry races the workers: 1 ms per 50 submissions
                    long last = 0;
                    while (!workersDone.get()) {
                        long now = submitted.get();
                        if (now - last >= 50) {
                            last = now;
                            timer.advanceClock(1);
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                });
            }

            ReliabilitySupport.runConcurrently("worker-of-" + name + "-round-" + round, work);
            if (timer != null) {
                timer.advanceClock(100); // past every deadline: whatever is left expires now
            }
            ReliabilitySupport.await(settled, "every operation of round " + round + " settled");

            List<LedgerOp> ops = new ArrayList<>(all);
            verifyRound(purgatory, timer, ops, completedByChecks.sum(), cancelledByKey.sum());
            List<WeakReference<LedgerOp>> sample = new ArrayList<>();
            for (int i = 0; i < ops.size(); i += 997) {
                sample.add(new WeakReference<>(ops.get(i)));
            }
            return sample;
        }

        private LedgerOp newOp(SplittableRandom rnd, Clock clock, CountDownLatch settled) {
            Fate fate = Fate.values()[rnd.nextInt(Fate.values().length)];
            long delayMs = rnd.nextInt(4) == 0 ? 1 : 1 + rnd.nextInt(manual ? 50 : 20);
            int n = 1 + rnd.nextInt(4);
            List<Object> keys = new ArrayList<>(n + 1);
            while (keys.size() < n) {
                String key = "k" + rnd.nextInt(SHARED_KEYS);
                if (!keys.contains(key)) {
                    keys.add(key);
                }
            }
            if (fate == Fate.CANCEL_BY_KEY) {
                keys.add(new Object()); // a key only this operation watches
            }
            LedgerOp op = new LedgerOp(fate, delayMs, keys, clock, settled);
            op.completable = fate == Fate.AT_ONCE;
            return op;
        }

        private static void act(DelayedOperationPurgatory<LedgerOp> purgatory, LedgerOp op, SplittableRandom rnd,
                                LongAdder completedByChecks, LongAdder cancelledByKey) {
            switch (op.fate) {
                case BY_KEY -> {
                    op.completable = true;
                    completedByChecks.add(purgatory.checkAndComplete(op.keys.get(rnd.nextInt(op.keys.size()))));
                }
                case FORCE -> op.actionWon = op.forceComplete();
                case CANCEL -> op.actionWon = op.cancel();
                case CANCEL_BY_KEY -> {
                    List<LedgerOp> cancelled = purgatory.cancelForKey(op.keys.get(op.keys.size() - 1));
                    assertThat(cancelled).as("only this operation watches its private key").isSubsetOf(op);
                    op.actionWon = !cancelled.isEmpty();
                    cancelledByKey.add(cancelled.size());
                }
                default -> throw new AssertionError(op.fate);
            }
        }

        private void verifyRound(DelayedOperationPurgatory<LedgerOp> purgatory, ManualTimer timer, List<LedgerOp> ops,
                                 long completedByChecks, long cancelledByKey) {
            assertThat(ops).hasSize(workers * opsPerWorker);
            Map<Outcome, Long> byOutcome = new EnumMap<>(Outcome.class);
            long atOnce = 0;
            long byKeyCompleted = 0;
            long byKeyCancelled = 0;
            for (LedgerOp op : ops) {
                assertSettledAsTheLedgerAllows(op);
                byOutcome.merge(op.outcome(), 1L, Long::sum);
                if (op.fate == Fate.AT_ONCE) {
                    atOnce++;
                } else if (op.fate == Fate.BY_KEY && op.outcome() == Outcome.COMPLETED) {
                    byKeyCompleted++;
                } else if (op.fate == Fate.CANCEL_BY_KEY && op.outcome() == Outcome.CANCELLED) {
                    byKeyCancelled++;
                }
            }
            assertThat(completedByChecks).as("checkAndComplete counts").isEqualTo(byKeyCompleted);
            assertThat(cancelledByKey).as("cancelForKey results").isEqualTo(byKeyCancelled);
            operations += ops.size();
            atOnceTotal += atOnce;
            byOutcome.forEach((o, n) -> settledTotals.merge(o, n, Long::sum));

            PurgatoryStats stats = purgatory.stats();
            assertThat(stats.completedAtOnce()).isEqualTo(atOnceTotal);
            assertThat(stats.completed()).isEqualTo(settledTotals.get(Outcome.COMPLETED) - atOnceTotal);
            assertThat(stats.expired()).isEqualTo(settledTotals.get(Outcome.EXPIRED));
            assertThat(stats.cancelled()).isEqualTo(settledTotals.get(Outcome.CANCELLED));
            assertThat(stats.callbackErrors()).isZero();
            assertThat(stats.rejected()).isZero();
            assertThat(stats.pending()).isZero();
            assertThat(stats.watched()).isZero();
            assertThat(stats.keys()).isZero();
            assertThat(EngineInternals.timer(purgatory.engine().runtime()).size()).isZero();
            purgatory.engine().checkInvariants();
            if (timer != null) {
                timer.advanceClock(0); // drain cancelled timer entries, so the timer holds no operation
            }
        }

        private static void assertSettledAsTheLedgerAllows(LedgerOp op) {
            Outcome outcome = op.outcome();
            assertThat(outcome).as("%s settled", op).isNotNull();
            assertThat(op.violation).as("%s: contract breach", op).isNull();
            Outcome allowed = switch (op.fate) {
                case AT_ONCE -> Outcome.COMPLETED;
                case EXPIRE -> Outcome.EXPIRED;
                case BY_KEY -> outcome; // completed by some check, or expired first: both fine, and counted
                case FORCE -> op.actionWon ? Outcome.COMPLETED : Outcome.EXPIRED;
                case CANCEL, CANCEL_BY_KEY -> op.actionWon ? Outcome.CANCELLED : Outcome.EXPIRED;
            };
            assertThat(outcome).as("%s (action won: %s)", op, op.actionWon).isEqualTo(allowed);
            assertThat(op.submitReturned).as("%s: tryCompleteElseWatch's result", op)
                    .isEqualTo(op.fate == Fate.AT_ONCE);
            assertThat(op.onComplete.get()).as("%s onComplete", op)
                    .isEqualTo(outcome == Outcome.CANCELLED ? 0 : 1);
            assertThat(op.onExpiration.get()).as("%s onExpiration", op).isEqualTo(outcome == Outcome.EXPIRED ? 1 : 0);
            assertThat(op.onCancel.get()).as("%s onCancel", op).isEqualTo(outcome == Outcome.CANCELLED ? 1 : 0);
            if (outcome == Outcome.EXPIRED) {
                assertThat(op.expiredAtNanos - op.submittedNanos).as("%s expired no earlier than its delay", op)
                        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(op.delayMs()));
            }
        }
    }

    /** An operation that records what happened to it, and any breach of the threading contract. */
    static final class LedgerOp extends DelayedOperation {
        final Fate fate;
        final List<Object> keys;
        final AtomicInteger onComplete = new AtomicInteger();
        final AtomicInteger onExpiration = new AtomicInteger();
        final AtomicInteger onCancel = new AtomicInteger();
        private final Clock clock;
        private final CountDownLatch settled;
        volatile boolean completable;
        volatile boolean submitReturned;
        volatile boolean actionWon;
        volatile long submittedNanos;
        volatile long expiredAtNanos;
        volatile String violation;
        private final AtomicInteger trying = new AtomicInteger();

        LedgerOp(Fate fate, long delayMs, List<Object> keys, Clock clock, CountDownLatch settled) {
            super(delayMs);
            this.fate = fate;
            this.keys = keys;
            this.clock = clock;
            this.settled = settled;
        }

        @Override
        protected boolean tryComplete() {
            if (trying.incrementAndGet() != 1) {
                violation = "two tries at once";
            }
            try {
                if (onComplete.get() + onCancel.get() != 0) {
                    violation = "tryComplete after the callbacks";
                }
                return completable && forceComplete();
            } finally {
                trying.decrementAndGet();
            }
        }

        @Override
        protected void onComplete() {
            checkNoMonitor();
            onComplete.incrementAndGet();
            if (outcome() == Outcome.COMPLETED) {
                settled.countDown();
            }
        }

        @Override
        protected void onExpiration() {
            checkNoMonitor();
            expiredAtNanos = clock.nanoTime();
            onExpiration.incrementAndGet();
            settled.countDown();
        }

        @Override
        protected void onCancel() {
            checkNoMonitor();
            onCancel.incrementAndGet();
            settled.countDown();
        }

        private void checkNoMonitor() {
            if (trying.get() != 0) {
                violation = "callback during a try";
            }
        }

        @Override
        public String toString() {
            return "LedgerOp[" + fate + ", delayMs=" + delayMs() + ", keys=" + keys.size() + ", " + outcome() + "]";
        }
    }
}
