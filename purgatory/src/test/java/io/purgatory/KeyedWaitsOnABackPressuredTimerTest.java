package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualClock;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyedWaits} with early events on a {@link SystemTimer} with back-pressure
 * ({@link TimerSettings#withBackPressure}): an event's window is a timer entry the library puts on
 * the timer for itself, so a {@code complete} never waits for expiries to catch up, however far
 * behind they run, and holds nothing the timer's own threads need to catch up.
 */
class KeyedWaitsOnABackPressuredTimerTest {

    private static final long BOUND_SECONDS = 60;
    private static final long JOIN_SECONDS = 10;

    @Test
    void complete_onATimerFarBehind_neverWaitsAndTheTimersThreadEndsTheEarlierWindows() throws Exception {
        ManualClock clock = new ManualClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer timer = SystemTimer.builder("pressed").clock(clock).executor(handedOff::add)
                .settings(TimerSettings.DEFAULT.withBackPressure(Duration.ofSeconds(BOUND_SECONDS))).build();
        KeyedWaits<String, String> waits = KeyedWaits.builder("early").timer(timer)
                .retainEvents(Duration.ofMillis(10), 100).build();
        Thread executor = null;
        try {
            for (int i = 0; i < 40; i++) {
                assertThat(waits.complete("early-" + i, "v")).isZero(); // retained until 10
            }
            clock.advanceMillis(10);
            timer.advanceClock(0); // their windows' ends wait in the executor
            assertThat(handedOff).isNotEmpty(); // in two runs, or more where the reaper advanced too
            clock.advanceMillis(2 * TimeUnit.SECONDS.toMillis(BOUND_SECONDS)); // expiries run 120 s late
            assertThat(timer.lagMs()).isGreaterThan(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));

            assertThat(waits.complete("second", "v")).isZero(); // its window goes on the timer, now

            assertThat(timer.backPressureWaits()).as("the window was scheduled without waiting").isZero();
            assertThat(waits.retainedEvents()).isEqualTo(41);
            executor = new Thread(handedOff.poll(), "pressed-executor"); // the first run
            executor.start();
            executor.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
            assertThat(executor.isAlive()).as("the timer's thread, ending an early event's window, is %s",
                    executor.getState()).isFalse();
        } finally {
            handedOff.forEach(Runnable::run);
            waits.close(); // stops its driver first: a timer closed under a driver makes it warn
            timer.close();
            if (executor != null) {
                executor.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
            }
        }
    }
}
