package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, defects 3 and 5 to 10: the edges of the seam between an operation, its purgatory and
 * its watch lists. Each test failed before the re-cut that fixed its defect.
 */
class SeamDefectsTest {

    // ---- defect 3: an operation watched on no key ----

    @ParameterizedTest(name = "{0}, timer {1}")
    @CsvSource({"EXPIRE,true", "COMPLETE,true", "CANCEL,true", "EXPIRE,false", "COMPLETE,false", "CANCEL,false"})
    void onlyKeyThrowsWhileWatched_submissionFailsAndCloseLeavesNothingPending(ClosePolicy policy, boolean withTimer) {
        ManualTimer timer = new ManualTimer();
        PurgatoryBuilder<HookOp> b = DelayedOperationPurgatory.<HookOp>builder("no-key").closePolicy(policy)
                .reaperEnabled(false);
        DelayedOperationPurgatory<HookOp> p = withTimer ? b.timer(timer).build() : b.timerEnabled(false).build();
        HookOp op = new HookOp(100);

        assertThatThrownBy(() -> p.tryCompleteElseWatch(op, List.of(new InputValidationTest.FlakyHashKey())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watch key at index 0");
        p.close();

        assertThat(p.numDelayed()).isZero();
        assertThat(op.callbackCounts()).as("never submitted, never answered").isEqualTo("0,0,0");
        assertThat(timer.size()).isZero();
        timer.close();
    }

    // ---- defect 5: nested checks inside tries, on two threads ----

    @Test
    void nestedChecksInsideTries_eachChecksTheOthersKeyOnTwoThreads_noDeadlockAndBothComplete() {
        DelayedOperationPurgatory<Nesting> p = DelayedOperationPurgatory.<Nesting>builder("nesting")
                .timerEnabled(false).reaperEnabled(false).build();
        CyclicBarrier bothTrying = new CyclicBarrier(2);
        Nesting a = new Nesting(p, "b", bothTrying);
        Nesting b = new Nesting(p, "a", bothTrying);
        p.tryCompleteElseWatch(a, List.of("a"));
        p.tryCompleteElseWatch(b, List.of("b"));
        a.armed = true;
        b.armed = true;

        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Thread t1 = new Thread(() -> p.checkAndComplete("a"), "checks-a");
            Thread t2 = new Thread(() -> p.checkAndComplete("b"), "checks-b");
            t1.start();
            t2.start();
            t1.join();
            t2.join();
        }, "A's try checks B's key while B's try checks A's: before, monitor against monitor, for ever");

        assertThat(a.completions).hasValue(1);
        assertThat(b.completions).hasValue(1);
        assertThat(p.numDelayed()).isZero();
        p.engine().checkInvariants();
        p.close();
    }

    // ---- defect 6: a timer whose add throws something other than IllegalStateException ----

    @ParameterizedTest
    @ValueSource(strings = {"runtime", "error"})
    void timerAddThrows_submissionFailsAndLeavesNothingBehind(String kind) {
        Throwable failure = kind.equals("error")
                ? new OutOfMemoryError("refused") : new UnsupportedOperationException();
        RefusingTimer timer = new RefusingTimer(failure);
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("timer-throws")
                .timer(timer).reaperEnabled(false).maxPending(1).build();
        HookOp op = new HookOp(100);

        assertThatThrownBy(() -> p.tryCompleteElseWatch(op, List.of("k", "k2"))).isSameAs(failure);

        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        op.completable = true;
        assertThat(p.checkAndComplete("k")).as("not watched any more").isZero();
        assertThat(op.isCompleted()).isFalse();
        timer.refusing = false;
        HookOp next = new HookOp(100);
        assertThat(p.tryCompleteElseWatch(next, List.of("k"))).as("the maxPending slot was given back").isFalse();
        next.forceComplete();
        assertThat(p.tryCompleteElseWatch(op, List.of("k"))).as("and the operation can be submitted again").isTrue();
        p.engine().checkInvariants();
        p.close();
    }

    // ---- defect 7: time in purgatory wrapped after 71.6 minutes ----

    @Test
    void timeInPurgatory_eightyMinuteWait_isRecordedAsEightyMinutes() {
        ManualClock clock = new ManualClock();
        RecordingMetrics metrics = new RecordingMetrics();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("long-wait")
                .timerEnabled(false).reaperEnabled(false).clock(clock).metrics(metrics).build();
        HookOp shortDelay = new HookOp(1_000); // never expires here: no timer
        HookOp longDelay = new HookOp(TimeUnit.DAYS.toMillis(2));
        p.tryCompleteElseWatch(shortDelay, List.of("k"));
        p.tryCompleteElseWatch(longDelay, List.of("k"));

        clock.advance(80, TimeUnit.MINUTES);
        shortDelay.forceComplete();
        clock.advance(TimeUnit.DAYS.toMinutes(60), TimeUnit.MINUTES);
        longDelay.forceComplete();

        RecordingMetrics.Recorder recorded = metrics.of("long-wait");
        assertThat(recorded.count(Outcome.COMPLETED)).isEqualTo(2);
        assertThat(TimeUnit.NANOSECONDS.toMinutes(recorded.maxNanos(Outcome.COMPLETED)))
                .isEqualTo(80 + TimeUnit.DAYS.toMinutes(60));
        assertThat(TimeUnit.NANOSECONDS.toMinutes(recorded.totalNanos(Outcome.COMPLETED)))
                .isEqualTo(80 + 80 + TimeUnit.DAYS.toMinutes(60));
        p.close();
    }

    // ---- defect 8: a clock that reads negative ----

    @Test
    void keptEmptyKeyLists_clockReadingNegative_areSweptAfterASecond() {
        ManualClock clock = new ManualClock(-TimeUnit.HOURS.toNanos(1));
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("negative-clock")
                .timerEnabled(false).reaperEnabled(false).clock(clock).build();
        HookOp op = new HookOp(100);
        p.tryCompleteElseWatch(op, List.of("k"));
        op.forceComplete();
        assertThat(p.engine().emptyKeyLists()).as("kept for reuse").isEqualTo(1);

        clock.advance(500, TimeUnit.MILLISECONDS);
        p.engine().purgeIfNeeded();
        assertThat(p.engine().emptyKeyLists()).as("kept less than a second").isEqualTo(1);
        clock.advance(600, TimeUnit.MILLISECONDS);
        p.engine().purgeIfNeeded();

        assertThat(p.engine().emptyKeyLists()).isZero();
        assertThat(p.stats().purges()).isEqualTo(1);
        p.close();
    }

    // ---- defect 9: a settle during the watch ----

    @Test
    void keyWhoseHashCodeCancelsTheOperationWhileItIsWatched_settledOnceAndOnNoList() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("settle-in-watch")
                .timer(timer).reaperEnabled(false).build();
        HookOp op = new HookOp(100);
        CancellingKey key = new CancellingKey(op);

        assertThat(p.tryCompleteElseWatch(op, List.of("plain", key))).isFalse();

        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(p.stats().cancelled()).isEqualTo(1);
        p.engine().checkInvariants();
        p.close();
        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
    }

    // ---- defect 10: a check is bounded by the list it read ----

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

    // ---- also seen: a purgatory on a manual clock with its own timer and reaper ----

    @Test
    void ownTimerAndReaperOnAManualClock_keptEmptyListsAreSweptOnceTheClockPassesASecond() {
        ManualClock clock = new ManualClock();
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("manual-clock-reaper")
                .clock(ReliabilitySupport.readingOf(clock)).build()) { // not a ManualClock: refused for an own timer
            HookOp op = new HookOp(60_000);
            p.tryCompleteElseWatch(op, List.of("k"));
            op.forceComplete();
            assertThat(p.engine().emptyKeyLists()).isEqualTo(1);

            clock.advance(2, TimeUnit.SECONDS);

            ReliabilitySupport.awaitCondition("the reaper swept the kept list", () -> p.engine().emptyKeyLists() == 0);
        }
    }

    /** Completes once armed; its first armed try waits for the other's try, then checks the other's key. */
    static final class Nesting extends DelayedOperation {
        final DelayedOperationPurgatory<Nesting> purgatory;
        final String otherKey;
        final CyclicBarrier bothTrying;
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean armed;
        private boolean nested;

        Nesting(DelayedOperationPurgatory<Nesting> purgatory, String otherKey, CyclicBarrier bothTrying) {
            super(60_000);
            this.purgatory = purgatory;
            this.otherKey = otherKey;
            this.bothTrying = bothTrying;
        }

        @Override
        protected boolean tryComplete() {
            if (!armed) {
                return false;
            }
            if (!nested) {
                nested = true;
                try {
                    bothTrying.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                purgatory.checkAndComplete(otherKey);
            }
            return forceComplete();
        }

        @Override
        protected void onComplete() {
            completions.incrementAndGet();
        }

        @Override
        protected void onExpiration() {
        }
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

    /** A key whose hashCode cancels the operation the second time it is called: while it is being watched. */
    static final class CancellingKey {
        private final DelayedOperation op;
        private final AtomicInteger calls = new AtomicInteger();

        CancellingKey(DelayedOperation op) {
            this.op = op;
        }

        @Override
        public int hashCode() {
            if (calls.incrementAndGet() == 2) {
                op.cancel();
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }
    }

    /** A user-supplied timer whose add throws {@code failure} while refusing. */
    static final class RefusingTimer implements Timer {
        private final Throwable failure;
        private final ManualTimer delegate = new ManualTimer();
        volatile boolean refusing = true;

        RefusingTimer(Throwable failure) {
            this.failure = failure;
        }

        @Override
        public void add(TimerTask task) {
            if (refusing) {
                if (failure instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) failure;
            }
            delegate.add(task);
        }

        @Override
        public boolean advanceClock(long timeoutMs) {
            return delegate.advanceClock(timeoutMs);
        }

        @Override
        public int size() {
            return delegate.size();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
