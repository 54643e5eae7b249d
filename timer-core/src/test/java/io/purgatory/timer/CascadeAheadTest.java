package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Cascading coarse buckets ahead of their due time (EarlyCascade A1-A2), on a manual clock: which
 * level holds the tasks before their bucket is due, how fast they move, and that each task still
 * runs exactly at its deadline. Kafka's geometry (a 1 ms tick, 20 buckets) gives levels of 1, 10
 * and 100 ms ticks, each coarser one with a lead of a whole tick.
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
        SystemTimer timer = SystemTimer.builder("ahead").settings(TimerSettings.KAFKA).clock(clock)
                .executor(Runnable::run).build();
        toClose.add(timer);
        return timer;
    }

    private ManualTimer manualTimer() {
        ManualTimer timer = new ManualTimer(clock);
        toClose.add(timer);
        return timer;
    }

    /** Tasks linked on {@code level} itself, not above it. */
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
    void levels_kafkasGeometry_haveTicksOfHalfTheSpanBelowAndAWholeTickOfLead() {
        ManualTimer timer = manualTimer();
        timer.add(new ClockedTask(1_000));
        timer.advanceClock(0);
        TimerEngine engine = timer.engine();

        assertThat(level(engine, 1).tickMs()).isEqualTo(10);
        assertThat(level(engine, 1).leadMs()).isEqualTo(10);
        assertThat(level(engine, 2).tickMs()).isEqualTo(100);
        assertThat(level(engine, 2).leadMs()).isEqualTo(100);
        assertThat(engine.wheel().leadMs()).as("the finest level has none").isZero();
    }

    @Test
    void cascadeAheadPaced_nextCoarseBucket_movesItsTasksLinearlyOverItsLead() throws Exception {
        ManualTimer timer = manualTimer();
        TimerEngine engine = timer.engine();
        List<ClockedTask> tasks = addRange(timer, 300, 400, new ArrayList<>()); // bucket 3 of the 100 ms level
        timer.advanceClock(199);
        TimingWheel coarse = level(engine, 2);
        assertThat(linkedOn(coarse)).isEqualTo(100);
        assertThat(engine.cascadeAheadOnce(true)).as("its lead starts at 200").isFalse();

        timer.advanceClock(1); // 200: 1 ms of the 100 ms lead
        assertThat(engine.cascadeAheadOnce(true)).isTrue();
        assertThat(linkedOn(coarse)).isEqualTo(99);
        assertThat(engine.cascadeAheadOnce(true)).as("nothing behind schedule").isFalse();
        timer.checkInvariants();

        timer.advanceClock(49); // 249: half way
        engine.cascadeAheadOnce(true);
        assertThat(linkedOn(coarse)).isEqualTo(50);
        timer.checkInvariants();

        timer.advanceClock(50); // 299: the last finest tick before it is due
        engine.cascadeAheadOnce(true);
        assertThat(linkedOn(coarse)).isZero();
        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).isEmpty());
        timer.checkInvariants();

        stepTo(clock, timer, 400, timer::checkInvariants);
        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).containsExactly(task.delayMs()));
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void advanceClock_nothingDueWithinTheLead_movesTheWholeBucketAtOnce() throws Exception {
        SystemTimer timer = systemTimer();
        TimerEngine engine = timer.engine();
        List<ClockedTask> tasks = addRange(timer, 300, 400, new ArrayList<>());
        timer.advanceClock(0);
        TimingWheel coarse = level(engine, 2);

        clock.advanceMillis(199);
        assertThat(timer.advanceClock(0)).isFalse();
        assertThat(linkedOn(coarse)).as("before the lead").isEqualTo(100);
        assertThat(engine.nanosUntilNextWork()).as("wakes when the lead starts").isEqualTo(
                TimeUnit.MILLISECONDS.toNanos(1));

        clock.advanceMillis(1);
        assertThat(timer.advanceClock(0)).as("no bucket was due").isFalse();
        assertThat(linkedOn(coarse)).isZero();
        timer.checkInvariants();

        stepTo(clock, timer, 400, timer::checkInvariants);
        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).containsExactly(task.delayMs()));
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void advanceClock_dueWorkEveryTick_cascadesAheadOnScheduleAndRunsEachTaskAtItsDeadline() throws Exception {
        SystemTimer timer = systemTimer();
        TimerEngine engine = timer.engine();
        List<ClockedTask> tasks = new ArrayList<>();
        for (int copy = 0; copy < 20; copy++) {
            addRange(timer, 300, 400, tasks); // 2,000 tasks in one coarse bucket
        }
        List<ClockedTask> tickers = addRange(timer, 1, 300, new ArrayList<>()); // something due every tick
        timer.advanceClock(0);
        TimingWheel coarse = level(engine, 2);

        stepTo(clock, timer, 250, timer::checkInvariants);

        assertThat(linkedOn(coarse)).as("51 ms of the 100 ms lead: 51% moved").isEqualTo(2_000 - 1_020);
        stepTo(clock, timer, 300, timer::checkInvariants);
        assertThat(linkedOn(coarse)).as("all moved before it is due").isZero();
        stepTo(clock, timer, 400, timer::checkInvariants);
        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).containsExactly(task.delayMs()));
        assertThat(tickers).allSatisfy(task -> assertThat(task.ranAtMs).containsExactly(task.delayMs()));
        assertThat(timer.checkInvariants()).isZero();
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

    @ParameterizedTest
    @CsvSource({"1, 2", "1, 3", "1, 4", "1, 8", "3, 3", "3, 5", "2, 64"})
    void advanceClock_anyGeometry_runsEachTaskAtTheEndOfItsTickWhateverMovesItAhead(long tickMs, int wheelSize)
            throws Exception {
        SystemTimer timer = SystemTimer.builder("shapes").settings(TimerSettings.DEFAULT.withTickMs(tickMs)
                .withWheelSize(wheelSize)).clock(clock)
                .executor(Runnable::run).build();
        toClose.add(timer);
        SplittableRandom random = new SplittableRandom(tickMs * 100 + wheelSize);
        List<ClockedTask> tasks = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            // sparse and dense stretches: both the idle and the paced ways of cascading ahead
            ClockedTask task = new ClockedTask(random.nextInt(4) == 0 ? 1 + random.nextInt(3_000)
                    : 1_500 + random.nextInt(200));
            timer.add(task);
            tasks.add(task);
        }
        List<ClockedTask> cancelled = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i += 11) {
            tasks.get(i).cancel();
            cancelled.add(tasks.get(i));
        }

        stepTo(clock, timer, 3_000 + 2 * tickMs, timer::checkInvariants);

        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs).isEqualTo(cancelled.contains(task) ? List.of()
                : List.of((task.delayMs() + tickMs - 1) / tickMs * tickMs)));
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void cascadeAhead_bucketPartlyMoved_cancelledTasksNeverRunAndTheRestRunOnTime() throws Exception {
        ManualTimer timer = manualTimer();
        TimerEngine engine = timer.engine();
        List<ClockedTask> tasks = new ArrayList<>();
        for (int copy = 0; copy < 32; copy++) {
            addRange(timer, 300, 400, tasks); // 3,200 tasks, more than one step
        }
        timer.advanceClock(200);

        assertThat(engine.cascadeAheadOnce(false)).isTrue();
        assertThat(linkedOn(level(engine, 2))).as("a step re-adds a bounded batch").isEqualTo(3_200 - 1_024);
        timer.checkInvariants();
        List<ClockedTask> cancelled = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i += 3) {
            tasks.get(i).cancel();
            cancelled.add(tasks.get(i));
        }
        timer.advanceClock(0);
        timer.checkInvariants();

        stepTo(clock, timer, 400, timer::checkInvariants);

        assertThat(tasks).allSatisfy(task -> assertThat(task.ranAtMs)
                .isEqualTo(cancelled.contains(task) ? List.of() : List.of(task.delayMs())));
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void close_bucketPartlyMoved_cancelsItsTasks() throws Exception {
        ManualTimer timer = manualTimer();
        List<ClockedTask> tasks = new ArrayList<>();
        for (int copy = 0; copy < 32; copy++) {
            addRange(timer, 300, 400, tasks);
        }
        timer.advanceClock(200);
        assertThat(timer.engine().cascadeAheadOnce(false)).isTrue();

        timer.close();

        assertThat(timer.size()).isZero();
        assertThat(tasks).allSatisfy(task -> assertThat(task.isCancelled()).isTrue());
        assertThat(linkedFrom(timer.engine().wheel())).isZero();
    }
}
