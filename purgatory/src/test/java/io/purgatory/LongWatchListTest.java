package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Watch lists (Watchers K1, K2, K7) with gaps made in every order, through the purgatory while a
 * check holds a copy, a try throws, a cascade runs, or the application keeps a settled operation
 * (the lists against a model: WatchersTest). A check tries exactly the operations on its key's list when it began (K6),
 * whatever its tries watch or cancel on that key meanwhile, or other threads do.
 */
class LongWatchListTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<String> errors = new ArrayList<>();
    private final DelayedOperationPurgatory<HookOp> purgatory = DelayedOperationPurgatory.<HookOp>builder("long-lists")
            .timer(timer).reaperEnabled(false)
            .errorHandler((name, op, callback, error) -> errors.add(callback + ": " + error))
            .build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void aCheckOnALongList_triesInWatchOrder_afterRandomSettles() {
        List<HookOp> ops = new ArrayList<>();
        List<HookOp> tried = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            HookOp op = new HookOp(60_000);
            op.tryHook = () -> tried.add(op);
            purgatory.tryCompleteElseWatch(op, List.of("hot"));
            ops.add(op);
        }
        Random random = new Random(11);
        List<HookOp> pending = new ArrayList<>(ops);
        Set<HookOp> onSeveralKeys = new HashSet<>();
        for (int round = 0; round < 20_000; round++) { // random settles and new watches
            pending.remove(random.nextInt(pending.size())).cancel();
            HookOp op = new HookOp(60_000);
            op.tryHook = () -> tried.add(op);
            boolean alone = random.nextBoolean();
            purgatory.tryCompleteElseWatch(op, alone ? List.of("hot") : List.of("hot", "cold" + round));
            pending.add(op);
            if (!alone) {
                onSeveralKeys.add(op);
            }
        }
        purgatory.engine().checkInvariants();
        tried.clear();

        assertThat(purgatory.checkAndComplete("hot")).isZero();

        List<HookOp> expected = new ArrayList<>();
        pending.stream().filter(op -> !onSeveralKeys.contains(op)).forEach(expected::add);
        pending.stream().filter(onSeveralKeys::contains).forEach(expected::add);
        assertThat(tried).as("(K1) every pending operation once: those on the key alone in watch order, then the"
                + " others in theirs").containsExactlyElementsOf(expected);
    }

    @Test
    void settlesAndWatchesDuringACheck_onTheListItCopied_areSeenByTheCheckAsK6Says() {
        List<HookOp> ops = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            HookOp op = new HookOp(60_000);
            purgatory.tryCompleteElseWatch(op, i % 2 == 0 ? List.of("hot") : List.of("hot", "other" + i));
            ops.add(op);
        }
        List<HookOp> added = new ArrayList<>();
        HookOp first = ops.get(0);
        first.tryHook = () -> { // settles most of the list it copied, and watches more
            first.tryHook = () -> { };
            for (int i = 1; i < ops.size(); i++) {
                if (i % 10 != 0) {
                    ops.get(i).cancel();
                }
            }
            for (int i = 0; i < 2_000; i++) {
                HookOp op = new HookOp(60_000);
                purgatory.tryCompleteElseWatch(op, List.of("hot"));
                added.add(op);
            }
            purgatory.engine().checkInvariants();
        };
        for (HookOp op : ops) {
            op.completable = true;
        }

        int completed = purgatory.checkAndComplete("hot");

        assertThat(completed).as("the first and the 99 not cancelled; none watched after the check began")
                .isEqualTo(100);
        assertThat(added).as("their submission's two tries only")
                .allMatch(op -> op.tries.get() == 2 && !op.isCompleted());
        assertThat(ops.stream().filter(HookOp::isCancelled)).as("in the copy, settled: not tried again")
                .hasSize(900).allMatch(op -> op.tries.get() == 2);
        added.forEach(op -> op.completable = true);
        assertThat(purgatory.checkAndComplete("hot")).isEqualTo(2_000);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void anErrorThrownMidCheck_onAListWithGaps_isReported_andEveryOtherOperationIsTried() {
        Random random = new Random(5);
        List<HookOp> pending = new ArrayList<>();
        for (int i = 0; i < 4_000; i++) {
            HookOp op = new HookOp(60_000);
            purgatory.tryCompleteElseWatch(op, List.of("hot"));
            pending.add(op);
            if (i % 3 == 2) {
                pending.remove(random.nextInt(pending.size())).forceComplete();
            }
        }
        HookOp failing = pending.get(pending.size() / 2);
        failing.tryHook = () -> {
            throw new OutOfMemoryError("from tryComplete");
        };
        pending.forEach(op -> op.completable = true);
        int expected = pending.size() - 1;

        assertThat(purgatory.checkAndComplete("hot")).isEqualTo(expected);

        assertThat(errors).containsExactly("TRY_COMPLETE: java.lang.OutOfMemoryError: from tryComplete");
        assertThat(pending).filteredOn(op -> op != failing).allMatch(HookOp::isCompleted);
        assertThat(failing.isCompleted()).isFalse();
        purgatory.engine().checkInvariants();
        failing.tryHook = () -> { };
        assertThat(purgatory.checkAndComplete("hot")).isEqualTo(1);
    }

    @Test
    void aCascadeOfSettlesThroughOneLongList_runsInBoundedStack_andLeavesItEmpty() {
        int depth = 30_000;
        List<HookOp> chain = new ArrayList<>();
        for (int i = 0; i < depth; i++) {
            HookOp op = new HookOp(60_000);
            // the first watches "hot" alone, so a check tries it first (K1): its completion starts the cascade
            purgatory.tryCompleteElseWatch(op, i % 3 == 1 ? List.of("hot", "side" + i) : List.of("hot"));
            chain.add(op);
        }
        for (int i = 0; i < depth - 1; i++) { // each completion cancels the next, whose cancel completes the one after
            HookOp next = chain.get(i + 1);
            chain.get(i).completeHook = next::cancel;
            if (i + 2 < depth) {
                HookOp after = chain.get(i + 2);
                next.cancelHook = after::forceComplete;
            }
        }
        chain.forEach(op -> op.completable = true);

        assertThat(purgatory.checkAndComplete("hot")).as("the others were settled by the cascade first")
                .isEqualTo(1);

        assertThat(chain).allMatch(DelayedOperation::isCompleted);
        assertThat(errors).isEmpty();
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void aRetainedSettledOperation_onALongListSettledAtRandomAfter_reachesNoOther() {
        List<WeakReference<HookOp>> others = new ArrayList<>();
        HookOp retained = new HookOp(60_000);
        purgatory.tryCompleteElseWatch(retained, List.of("hot", "other"));
        List<HookOp> strong = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            HookOp op = new HookOp(60_000);
            purgatory.tryCompleteElseWatch(op, List.of("hot"));
            strong.add(op);
            others.add(new WeakReference<>(op));
        }
        assertThat(retained.cancel()).isTrue();
        Random random = new Random(3);
        while (!strong.isEmpty()) {
            strong.remove(random.nextInt(strong.size())).forceComplete();
        }

        timer.advanceClock(0); // the timer drops its cancelled entries at its next turn
        assertThat(others).as("settled operations no longer reachable").allMatch(ReliabilitySupport::isCollected);
        assertThat(EngineInternals.holdsNoWatchLink(retained)).as("(K2) a settled operation links to nothing").isTrue();
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void positionedPlainAndMultiKeyOperations_settledInRandomOrder_shareOneListConsistently() {
        Random random = new Random(9);
        List<HookOp> pending = new ArrayList<>();
        long position = 0;
        for (int i = 0; i < 6_000; i++) {
            HookOp op = new HookOp(60_000);
            switch (i % 4) {
                case 0 -> purgatory.tryCompleteElseWatch(op, "hot", position + 1 + random.nextInt(50));
                case 1 -> purgatory.tryCompleteElseWatch(op, List.of("hot", "k" + i), new long[] {position + 5, 1});
                case 2 -> purgatory.tryCompleteElseWatch(op, List.of("hot", "k" + i));
                default -> purgatory.tryCompleteElseWatch(op, List.of("hot"));
            }
            pending.add(op);
            if (i % 50 == 0) {
                position += 10;
                assertThat(purgatory.checkAndComplete("hot", position)).isZero(); // reached ones move to the list
            }
            if (random.nextInt(3) == 0) {
                HookOp victim = pending.remove(random.nextInt(pending.size()));
                switch (random.nextInt(3)) {
                    case 0 -> victim.cancel();
                    case 1 -> victim.run(); // as the timer's expiry
                    default -> victim.forceComplete();
                }
            }
            if (i % 1_000 == 0) {
                purgatory.engine().checkInvariants();
            }
        }
        purgatory.engine().checkInvariants();
        pending.forEach(op -> op.completable = true);

        assertThat(purgatory.checkAndComplete("hot")).isEqualTo(pending.size());

        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void checkAndComplete_tryWatchesMoreOperationsOnTheSameKey_triesOnlyThoseWatchedBeforeItBegan() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("bounded-check")
                .timerEnabled(false).reaperEnabled(false).build();
        List<HookOp> added = new ArrayList<>();
        HookOp spawner = new HookOp(100);
        p.tryCompleteElseWatch(spawner, List.of("k"));
        spawner.tryHook = () -> {
            for (int i = 0; i < 3; i++) {
                HookOp more = new HookOp(100);
                added.add(more);
                p.tryCompleteElseWatch(more, List.of("k"));
            }
        };

        p.checkAndComplete("k");
        p.checkAndComplete("k");

        assertThat(added).as("each check tried the spawner once").hasSize(6);
        assertThat(added.subList(0, 3)).allSatisfy(op -> assertThat(op.tries).as("2 of its submission, 1 check")
                .hasValue(3));
        assertThat(added.subList(3, 6)).allSatisfy(op -> assertThat(op.tries).as("watched during the second check")
                .hasValue(2));
        p.close();
    }

    @Test
    void checkAndComplete_lastOperationOfItsListCancelledDuringTheCheck_operationsWatchedLaterAreNotTried() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("moving-tail")
                .timerEnabled(false).reaperEnabled(false).build();
        HookOp first = new HookOp(100);
        HookOp middle = new HookOp(100);
        HookOp last = new HookOp(100);
        List<HookOp> later = new ArrayList<>();
        for (HookOp op : List.of(first, middle, last)) {
            p.tryCompleteElseWatch(op, List.of("k"));
        }
        first.tryHook = () -> {
            first.tryHook = () -> { };
            last.cancel(); // the list's last operation when the check began leaves it
            for (int i = 0; i < 2; i++) {
                HookOp op = new HookOp(100);
                later.add(op);
                p.tryCompleteElseWatch(op, List.of("k"));
            }
        };

        p.checkAndComplete("k");

        assertThat(later).allSatisfy(op -> assertThat(op.tries).as("only its submission's two tries").hasValue(2));
        assertThat(middle.tries).hasValue(3);
        p.close();
    }

    @Test
    void checkAndComplete_watchesAndCancelsRacingOnAKey_eachCheckTriesAtMostWhatTheListHeld() throws Exception {
        DelayedOperationPurgatory<Counted> p = DelayedOperationPurgatory.<Counted>builder("racing-check")
                .timerEnabled(false).reaperEnabled(false).build();
        int maxOnKey = 17;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong maxTriesPerCheck = new AtomicLong();
        ReliabilitySupport.runConcurrently("racing-check", List.of(
                () -> {
                    List<Counted> live = new ArrayList<>();
                    for (int i = 0; i < 200_000; i++) {
                        if (live.size() == maxOnKey) {
                            live.remove(0).cancel();
                        }
                        Counted op = new Counted();
                        p.tryCompleteElseWatch(op, List.of("hot"));
                        live.add(op);
                    }
                    stop.set(true);
                },
                () -> {
                    while (!stop.get()) {
                        Counted.triesOnThisThread.set(0);
                        p.checkAndComplete("hot");
                        maxTriesPerCheck.accumulateAndGet(Counted.triesOnThisThread.get(), Math::max);
                    }
                }));

        assertThat(maxTriesPerCheck.get()).as("tries by one check").isLessThanOrEqualTo(maxOnKey);
        p.close();
    }

    /** Counts the tries made on the current thread. */
    static final class Counted extends DelayedOperation {
        static final ThreadLocalCounter triesOnThisThread = new ThreadLocalCounter();

        Counted() {
            super(60_000);
        }

        @Override
        protected boolean tryComplete() {
            triesOnThisThread.increment();
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }
    }

    /** A per-thread counter. */
    static final class ThreadLocalCounter {
        private final ThreadLocal<long[]> value = ThreadLocal.withInitial(() -> new long[1]);

        void increment() {
            value.get()[0]++;
        }

        void set(long v) {
            value.get()[0] = v;
        }

        long get() {
            return value.get()[0];
        }
    }
}
