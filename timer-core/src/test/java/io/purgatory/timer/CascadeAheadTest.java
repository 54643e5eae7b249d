package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cascading coarse buckets ahead of their due time (EarlyCascade A1-A3), on a manual clock: which
 * level holds the tasks before their bucket is due, and that each task still runs exactly at
 * its deadline. A 1 ms tick and 20 buckets give levels of 1, 20 and 400 ms ticks.
 */
@Timeout(60) // a bug in the early cascade could spin instead of failing: bound it
class CascadeAheadTest {

    private final ManualClock clock = new ManualClock();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** Records the manual clock's reading, in ms, each time it runs. */
    private final class ClockedTask extends TimerTask {
        final List<Long> ranAtMs = new ArrayList<>();

        ClockedTask(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            ranAtMs.add(TimeUnit.NANOSECONDS.toMillis(clock.nanoTime()));
        }
    }

    private SystemTimer systemTimer() {
        SystemTimer timer = SystemTimer.builder("ahead").clock(clock).executor(Runnable::run).build();
        toClose.add(timer);
        return timer;
    }

    private ManualTimer manualTimer() {
        ManualTimer timer = new ManualTimer(clock);
        toClose.add(timer);
        return timer;
    }

    /** Tasks linked on {@code level} itself (its buckets and its early list), not above it. */
    private static long linkedOn(TimingWheel level) {
        return linkedFrom(level) - (level.overflow() == null ? 0 : linkedFrom(level.overflow()));
    }

    private static long linkedFrom(TimingWheel level) {
        long[] count = {0};
        level.forEachBucket(bucket -> bucket.forEach(task -> count[0]++));
        return count[0];
    }

    private static TimingWheel level(TimerEngine engine, int index) {
        TimingWheel w = engine.wheel();
        for (int i = 0; i < index; i++) {
            w = w.overflow();
        }
        return w;
    }

    private static boolean cascadeAheadOnce(TimerEngine engine) {
        return engine.cascadeAheadOnce();
    }

    /** One task per deadline in [fromMs, toMs), added at time 0 so that deadline == delay. */
    private List<ClockedTask> addRange(Timer timer, long fromMs, long toMs, List<ClockedTask> into) {
        for (long d = fromMs; d < toMs; d++) {
            ClockedTask task = new ClockedTask(d);
            timer.add(task);
            into.add(task);
        }
        return into;
    }

    /** Moves the clock 1 ms at a time to {@code toMs}, checking the invariants after each step. */
    private static void stepTo(ManualClock clock, Timer timer, long toMs, Runnable check) throws InterruptedException {
        while (TimeUnit.NANOSECONDS.toMillis(clock.nanoTime()) < toMs) {
            if (timer instanceof ManualTimer manual) {
                manual.advanceClock(1);
            } else {
                clock.advanceMillis(1);
                timer.advanceClock(0);
            }
            check.run();
        }
    }

    @Test
    void advanceClock_coarseBucketWithinItsLead_movesItsTasksToFinerLevelsBeforeItIsDue() throws Exception {
        SystemTimer timer = systemTimer();
        TimerEngine engine = timer.engine();
        List<ClockedTask> tasks = addRange(timer, 400, 800, new ArrayList<>()); // one bucket of the 400 ms level
        timer.advanceClock(0);
        TimingWheel coarse = level(engine, 2);
        assertThat(linkedOn(coarse)).isEqualTo(400);

        clock.advanceMillis(349); // the lead is 400 / 8 = 50 ms
        timer.advanceClock(0);
        assertThat(linkedOn(coarse)).as("before the lead").isEqualTo(400);

        clock.advanceMillis(1);
        assertThat(timer.advanceClock(0)).as("no bucket was due").isFalse();
        assertThat(linkedOn(coarse)).as("first pass at 350: what fits the 20 ms level (< 340 + 400) moved")
                .isEqualTo(800 - 740);
        timer.checkInvariants();

        clock.advanceMillis(25); // the time left has halved: second pass at 375
        timer.advanceClock(0);
        assertThat(linkedOn(coarse)).as("second pass at 375 (< 360 + 400)").isEqualTo(800 - 760);
        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).isEmpty());
        timer.checkInvariants();

        stepTo(clock, timer, 800, timer::checkInvariants);
        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).containsExactly(task.delayMs()));
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void advanceClock_allEarlyWorkDone_parksUntilTheNextPassWithoutFurtherWork() throws Exception {
        SystemTimer timer = systemTimer();
        TimerEngine engine = timer.engine();
        addRange(timer, 400, 800, new ArrayList<>());
        clock.advanceMillis(350);
        timer.advanceClock(0);

        assertThat(cascadeAheadOnce(engine)).as("nothing more to cascade at 350").isFalse();
        assertThat(engine.nanosUntilNextWork()).as("wakes for the next pass, at 375")
                .isEqualTo(TimeUnit.MILLISECONDS.toNanos(25));
    }

    @Test
    void advanceClock_randomDelays_runsEachTaskExactlyAtItsDeadline() throws Exception {
        SystemTimer timer = systemTimer();
        SplittableRandom random = new SplittableRandom(7);
        List<ClockedTask> tasks = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            ClockedTask task = new ClockedTask(1 + random.nextInt(9_000));
            timer.add(task);
            tasks.add(task);
        }
        List<ClockedTask> cancelled = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i += 7) {
            tasks.get(i).cancel();
            cancelled.add(tasks.get(i));
        }

        stepTo(clock, timer, 9_001, timer::checkInvariants);

        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs)
                .isEqualTo(cancelled.contains(task) ? List.of() : List.of(task.delayMs())));
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void cascadeAhead_earlyListInProgress_cancelledTasksNeverRunAndTheRestRunOnTime() throws Exception {
        ManualTimer timer = manualTimer();
        TimerEngine engine = timer.engine();
        List<ClockedTask> tasks = new ArrayList<>();
        for (int copy = 0; copy < 8; copy++) {
            addRange(timer, 400, 800, tasks); // 3,200 tasks, more than one step
        }
        timer.advanceClock(350);

        assertThat(cascadeAheadOnce(engine)).isTrue();
        assertThat(linkedOn(level(engine, 2))).as("a step re-adds a bounded batch").isGreaterThan(1_000);
        timer.checkInvariants();
        List<ClockedTask> cancelled = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i += 3) {
            tasks.get(i).cancel();
            cancelled.add(tasks.get(i));
        }
        timer.checkInvariants();

        stepTo(clock, timer, 800, timer::checkInvariants);

        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs)
                .isEqualTo(cancelled.contains(task) ? List.of() : List.of(task.delayMs())));
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void close_earlyListInProgress_cancelsItsTasks() throws Exception {
        ManualTimer timer = manualTimer();
        List<ClockedTask> tasks = new ArrayList<>();
        for (int copy = 0; copy < 8; copy++) {
            addRange(timer, 400, 800, tasks);
        }
        timer.advanceClock(350);
        assertThat(cascadeAheadOnce(timer.engine())).isTrue();

        timer.close();

        assertThat(timer.size()).isZero();
        assertThat(tasks).allSatisfy(task -> assertThat(task.isCancelled()).isTrue());
        assertThat(linkedFrom(timer.engine().wheel())).isZero();
    }
}
