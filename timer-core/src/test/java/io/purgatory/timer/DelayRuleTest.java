package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The delay rule of {@link Timer}, on both timers over a manual clock: a delay of zero or less
 * runs the task promptly (inside add, with an inline executor); a delay above MAX_DELAY_MS
 * saturates to it, so a task added with Long.MAX_VALUE waits and never runs.
 */
class DelayRuleTest {

    private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);

    private final ManualClock clock = new ManualClock(TimeUnit.SECONDS.toNanos(3) + 1); // not on a tick
    private Timer timer;

    @AfterEach
    void tearDown() {
        if (timer != null) {
            timer.close();
        }
    }

    static Stream<Arguments> timers() {
        Function<ManualClock, Timer> manual = ManualTimer::new;
        Function<ManualClock, Timer> system = c -> SystemTimer.builder("delays").clock(c).executor(Runnable::run)
                .build();
        return Stream.of(Arguments.of("ManualTimer", manual), Arguments.of("SystemTimer", system));
    }

    private static long checkInvariants(Timer timer) {
        return timer instanceof ManualTimer m ? m.checkInvariants() : ((SystemTimer) timer).checkInvariants();
    }

    /** Moves the clock a day forward and lets the timer run what is due. */
    private void advanceADay() throws InterruptedException {
        if (timer instanceof ManualTimer manual) {
            manual.advanceClock(DAY_MS);
        } else {
            clock.advanceMillis(DAY_MS);
            timer.advanceClock(0);
        }
    }

    static Stream<Arguments> dueNow() {
        return timers().flatMap(t -> Stream.of(0L, -1L, Long.MIN_VALUE)
                .map(d -> Arguments.of(t.get()[0], t.get()[1], d)));
    }

    static Stream<Arguments> saturating() {
        return timers().flatMap(t -> Stream.of(Timer.MAX_DELAY_MS, Timer.MAX_DELAY_MS + 1, Long.MAX_VALUE)
                .map(d -> Arguments.of(t.get()[0], t.get()[1], d)));
    }

    @ParameterizedTest(name = "{0}, delay {2}")
    @MethodSource("dueNow")
    void add_delayZeroOrLess_runsPromptlyOnce(String kind, Function<ManualClock, Timer> factory, long delayMs)
            throws Exception {
        timer = factory.apply(clock);
        CountingTask task = new CountingTask(delayMs);

        timer.add(task);

        assertThat(task.runs()).as("ran inside add").isEqualTo(1);
        assertThat(task.isScheduled()).isFalse();
        assertThat(timer.size()).isZero();
        advanceADay();
        assertThat(task.runs()).isEqualTo(1);
        assertThat(checkInvariants(timer)).isZero();
    }

    @ParameterizedTest(name = "{0}, delay {2}")
    @MethodSource("saturating")
    void add_delayAtOrAboveMaxDelay_waitsAtMaxDelayAndNeverRuns(String kind, Function<ManualClock, Timer> factory,
            long delayMs) throws Exception {
        timer = factory.apply(clock);
        CountingTask reference = new CountingTask(Timer.MAX_DELAY_MS);
        CountingTask task = new CountingTask(delayMs);
        timer.add(reference);

        timer.add(task);
        advanceADay();

        assertThat(task.deadlineMs).as("saturated to MAX_DELAY_MS, from the timer's origin")
                .isEqualTo(reference.deadlineMs).isEqualTo(Timer.MAX_DELAY_MS);
        assertThat(task.runs()).isZero();
        assertThat(task.isScheduled()).isTrue();
        assertThat(timer.size()).isEqualTo(2);
        assertThat(checkInvariants(timer)).isEqualTo(2);
        assertThat(task.cancel()).isTrue();
        assertThat(timer.size()).isEqualTo(1);
    }
}
