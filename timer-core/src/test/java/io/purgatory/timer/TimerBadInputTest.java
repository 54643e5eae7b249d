package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input to timer-core that the behaviour suites do not already try: the rows of
 * docs/reliability.md marked TimerBadInputTest. Each one either fails fast naming the argument
 * and its value, or has a defined, harmless effect.
 */
class TimerBadInputTest {

    @ParameterizedTest
    @ValueSource(longs = {-1L, Long.MIN_VALUE})
    void manualClockAdvance_negativeAmount_throwsIaeNamingAmountAndKeepsTheReading(long amount) {
        ManualClock clock = new ManualClock(100);

        assertThatThrownBy(() -> clock.advance(amount, TimeUnit.NANOSECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("amount must be >= 0: " + amount);
        assertThatThrownBy(() -> clock.advanceMillis(amount))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("amount");
        assertThat(clock.nanoTime()).isEqualTo(100);
    }

    @Test
    void builderTickMs_largestAllowedTick_isAcceptedAndHoldsTheHugestDelay() throws InterruptedException {
        try (SystemTimer timer = SystemTimer.builder("max-tick")
                .settings(TimerSettings.DEFAULT.withTickMs(Timer.MAX_DELAY_MS).withWheelSize(2))
                .clock(new ManualClock()).executor(Runnable::run).build()) {
            CountingTask huge = new CountingTask(Long.MAX_VALUE);
            CountingTask small = new CountingTask(1);
            timer.add(huge);
            timer.add(small);

            assertThat(timer.advanceClock(0)).isFalse();

            assertThat(timer.size()).isEqualTo(2);
            assertThat(timer.checkInvariants()).isEqualTo(2);
            assertThat(huge.runs()).isZero();
        }
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withTickMs(Timer.MAX_DELAY_MS + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith(": " + (Timer.MAX_DELAY_MS + 1));
    }

    @Test
    void add_delayLongMinValue_runsPromptlyLikeAnyNonPositiveDelay() {
        ManualTimer timer = new ManualTimer();
        CountingTask task = new CountingTask(Long.MIN_VALUE);

        timer.add(task);

        assertThat(task.runs()).isEqualTo(1);
        assertThat(timer.size()).isZero();
        assertThat(task.cancel()).isFalse();
    }

    @Test
    void add_delayJustAboveMaxDelay_isScheduledAtMaxDelay() {
        ManualTimer timer = new ManualTimer();
        CountingTask task = new CountingTask(Timer.MAX_DELAY_MS + 1);

        timer.add(task);
        timer.advanceClock(0);

        assertThat(task.deadlineMs).isEqualTo(Timer.MAX_DELAY_MS);
        assertThat(task.isScheduled()).isTrue();
        assertThat(timer.checkInvariants()).isEqualTo(1);
    }

    @Test
    void advanceClock_longMaxValueMillis_runsEverythingDueWithinTheClockRangeOnly() {
        ManualTimer timer = new ManualTimer();
        CountingTask century = new CountingTask(TimeUnit.DAYS.toMillis(36_500));
        CountingTask huge = new CountingTask(Long.MAX_VALUE);
        timer.add(century);
        timer.add(huge);

        timer.advanceClock(Long.MAX_VALUE); // the nanosecond clock saturates at 2^63 - 1 ns, about 292 years

        assertThat(century.runs()).isEqualTo(1);
        assertThat(huge.runs()).as("2^61 ms is beyond any clock reading").isZero();
        assertThat(huge.isScheduled()).isTrue();
        assertThat(timer.checkInvariants()).isEqualTo(1);
    }

    @Test
    void advanceClock_pastTheEndOfTheClockRange_saturatesAndNeverRunsATaskEarly() {
        ManualTimer timer = new ManualTimer(new ManualClock(Long.MAX_VALUE - 10)); // readings wrap: allowed
        timer.advanceClock(Long.MAX_VALUE);
        timer.advanceClock(Long.MAX_VALUE); // 2 x 292 years: beyond what a nanosecond clock can tell apart
        timer.advanceClock(1);
        CountingTask task = new CountingTask(10_000);

        timer.add(task);
        timer.advanceClock(0);

        assertThat(task.runs()).as("(E4) a task never runs before its deadline").isZero();
        assertThat(task.isScheduled()).isTrue();
        assertThat(timer.engine().nowNanos()).as("(E3) the relative clock stays >= 0").isEqualTo(Long.MAX_VALUE);
        assertThat(timer.checkInvariants()).isEqualTo(1);
    }

    // ---- every call after close ----

    @Test
    void manualTimer_everyCallAfterClose_failsFastOrIsAHarmlessNoOp() {
        ManualTimer timer = new ManualTimer();
        CountingTask cancelledByClose = new CountingTask(5);
        timer.add(cancelledByClose);
        timer.close();

        assertThatThrownBy(() -> timer.add(new CountingTask(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> timer.add(cancelledByClose)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> timer.advanceClock(1)).isInstanceOf(IllegalStateException.class);
        assertThat(cancelledByClose.cancel()).as("already cancelled by close").isFalse();
        assertThat(cancelledByClose.isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
        assertThat(timer.failedTaskCount()).isZero();
        timer.close();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void systemTimer_everyCallAfterClose_failsFastNamingTheTimerOrIsAHarmlessNoOp() {
        SystemTimer timer = SystemTimer.builder("shut").clock(new ManualClock()).build();
        timer.close();

        assertThatThrownBy(() -> timer.add(new CountingTask(1))).isInstanceOf(IllegalStateException.class)
                .hasMessage("timer 'shut' is closed");
        assertThatThrownBy(() -> timer.add(new CountingTask(0))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> timer.advanceClock(1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("timer 'shut' is closed");
        assertThatThrownBy(() -> timer.advanceClock(-1)).as("argument checked first")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(timer.size()).isZero();
        assertThat(timer.failedTaskCount()).isZero();
        timer.close();
        assertThat(timer.isTerminated()).isTrue();
    }

    @Test
    void systemTimerReaper_everyCallAfterClose_failsFastOrIsAHarmlessNoOp() {
        ManualTimer timer = new ManualTimer();
        SystemTimerReaper reaper = SystemTimerReaper.start("shut-reaper", timer);
        reaper.close();

        assertThatThrownBy(() -> reaper.add(new CountingTask(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> reaper.advanceClock(1)).isInstanceOf(IllegalStateException.class);
        assertThat(reaper.size()).isZero();
        assertThat(reaper.isAlive()).isFalse();
        reaper.close();
    }

    @Test
    void cancel_taskOfAClosedTimerThatRanBefore_returnsFalse() {
        ManualTimer timer = new ManualTimer();
        CountingTask ran = new CountingTask(1);
        timer.add(ran);
        timer.advanceClock(1);
        timer.close();

        assertThat(ran.cancel()).isFalse();
        assertThat(ran.isCancelled()).isFalse();
        assertThat(ran.runs()).isEqualTo(1);
    }
}
