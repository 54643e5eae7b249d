package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The duration rule of {@link Timer}: a Duration is read in whole ms rounded up, saturating instead
 * of throwing, and a null one throws naming the argument; every Duration overload of timer-core
 * follows it.
 */
class DurationRuleTest {

    static Stream<Arguments> conversions() {
        return Stream.of(
                Arguments.of(Duration.ZERO, 0L),
                Arguments.of(Duration.ofNanos(1), 1L),
                Arguments.of(Duration.ofNanos(999_999), 1L),
                Arguments.of(Duration.ofMillis(1), 1L),
                Arguments.of(Duration.ofMillis(1).plusNanos(1), 2L),
                Arguments.of(Duration.ofSeconds(3, 500_000_001), 3_501L),
                Arguments.of(Duration.ofNanos(-1), 0L),
                Arguments.of(Duration.ofMillis(-1).minusNanos(1), -1L),
                Arguments.of(Duration.ofMillis(-5), -5L),
                Arguments.of(Duration.ofMillis(Timer.MAX_DELAY_MS), Timer.MAX_DELAY_MS),
                Arguments.of(Duration.ofMillis(Long.MAX_VALUE), Long.MAX_VALUE),
                Arguments.of(Duration.ofMillis(Long.MIN_VALUE), Long.MIN_VALUE),
                Arguments.of(Duration.ofSeconds(Long.MAX_VALUE / 1000 - 1, 999_999_999), Long.MAX_VALUE / 1000 * 1000),
                Arguments.of(Duration.ofSeconds(Long.MAX_VALUE / 1000), Long.MAX_VALUE),
                Arguments.of(ChronoUnit.FOREVER.getDuration(), Long.MAX_VALUE),
                Arguments.of(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Long.MAX_VALUE),
                Arguments.of(Duration.ofSeconds(Long.MIN_VALUE), Long.MIN_VALUE));
    }

    @ParameterizedTest(name = "{0} is {1} ms")
    @MethodSource("conversions")
    void toMs_anyDuration_roundsUpToWholeMillisAndSaturates(Duration duration, long expectedMs) {
        assertThat(Timer.toMs(duration)).isEqualTo(expectedMs);
    }

    @Test
    void toMs_null_throwsNpeNamingTheArgument() {
        assertThatThrownBy(() -> Timer.toMs(null)).isInstanceOf(NullPointerException.class).hasMessage("duration");
    }

    @Test
    void timerTask_durationDelay_isTheDelayInMillisByTheRule() {
        assertThat(new DurationTask(Duration.ofNanos(1)).delayMs()).isEqualTo(1);
        assertThat(new DurationTask(Duration.ofSeconds(2)).delayMs()).isEqualTo(2_000);
        assertThat(new DurationTask(ChronoUnit.FOREVER.getDuration()).delayMs()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> new DurationTask(null)).isInstanceOf(NullPointerException.class).hasMessage("delay");
    }

    @Test
    void timerTask_oneNanosecondDelay_isNotDueNowAndRunsAfterOneMillisecond() {
        ManualTimer timer = new ManualTimer();
        DurationTask task = new DurationTask(Duration.ofNanos(1));

        timer.add(task);
        assertThat(task.runs).as("not due at once").isZero();
        timer.advanceClock(Duration.ofNanos(1));

        assertThat(task.runs).isEqualTo(1);
        assertThat(timer.clock().nanoTime()).as("the advance was rounded up too").isEqualTo(1_000_000);
    }

    @Test
    void timerTask_foreverDelay_neverRunsAndSpinsNothing() {
        ManualTimer timer = new ManualTimer();
        DurationTask task = new DurationTask(ChronoUnit.FOREVER.getDuration());

        timer.add(task);
        timer.advanceClock(Duration.ofDays(365 * 1000));

        assertThat(task.runs).isZero();
        assertThat(task.isScheduled()).isTrue();
        assertThat(timer.checkInvariants()).isEqualTo(1);
    }

    @Test
    void advanceClock_durationNullOrNegative_throwsNamingTimeout() throws InterruptedException {
        ManualTimer manual = new ManualTimer();
        assertThatThrownBy(() -> manual.advanceClock((Duration) null))
                .isInstanceOf(NullPointerException.class).hasMessage("timeout");
        assertThatThrownBy(() -> manual.advanceClock(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("timeout must be >= 0: PT-0.000000001S");
        try (SystemTimer system = SystemTimer.builder("durations").clock(new ManualClock()).executor(Runnable::run)
                .build()) {
            assertThatThrownBy(() -> system.advanceClock((Duration) null))
                    .isInstanceOf(NullPointerException.class).hasMessage("timeout");
            assertThatThrownBy(() -> system.advanceClock(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
            assertThat(system.advanceClock(Duration.ZERO)).isFalse();
        }
        assertThat(manual.clock().nanoTime()).isZero();
    }

    @Test
    void builderTick_duration_isTheTickInMillisByTheRule() throws InterruptedException {
        ManualClock clock = new ManualClock();
        try (SystemTimer timer = SystemTimer.builder("tick")
                .settings(TimerSettings.DEFAULT.withTick(Duration.ofNanos(1))).clock(clock)
                .executor(Runnable::run).build()) {
            DurationTask task = new DurationTask(Duration.ofMillis(1));
            timer.add(task);
            clock.advance(Duration.ofMillis(1));
            timer.advanceClock(0);
            assertThat(task.runs).as("a 1 ns tick is a 1 ms tick").isEqualTo(1);
        }
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withTick(null))
                .isInstanceOf(NullPointerException.class).hasMessage("tick");
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withTick(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tickMs");
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withTick(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith(": " + Long.MAX_VALUE);
    }

    @Test
    void manualClockAdvance_duration_movesToTheNanosecondAndSaturates() {
        ManualClock clock = new ManualClock(5);

        assertThat(clock.advance(Duration.ofNanos(1_500_001))).isEqualTo(1_500_006);
        assertThat(new ManualClock().advance(ChronoUnit.FOREVER.getDuration())).isEqualTo(Long.MAX_VALUE);
        assertThat(new ManualClock().advance(Duration.ofNanos(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(new ManualClock().advance(Duration.ofDays(1))).isEqualTo(TimeUnit.DAYS.toNanos(1));
        assertThatThrownBy(() -> clock.advance(null)).isInstanceOf(NullPointerException.class).hasMessage("amount");
        assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("amount");
        assertThat(clock.nanoTime()).isEqualTo(1_500_006);
    }

    /** A task built with a Duration. */
    private static final class DurationTask extends TimerTask {
        volatile int runs;

        DurationTask(Duration delay) {
            super(delay);
        }

        @Override
        @SuppressWarnings("NonAtomicVolatileUpdate") // one thread runs it
        public void run() {
            runs++;
        }
    }
}
