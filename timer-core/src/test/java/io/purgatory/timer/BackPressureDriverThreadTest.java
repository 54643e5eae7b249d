package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The thread that drives a {@link SystemTimer} with back-pressure never waits for it
 * ({@link SystemTimer.Builder#backPressure}: "the timer's own threads (the one driving it ...)
 * never wait"), also when it is a {@link SystemTimerReaper} whose action after each advance adds
 * to the timer: its progress is what the wait would be for.
 */
class BackPressureDriverThreadTest {

    @Test
    void add_fromTheReapersActionAfterEachAdvance_neverWaits() throws Exception {
        ManualClock clock = new ManualClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer timer = SystemTimer.builder("pressed").clock(clock).executor(handedOff::add)
                .settings(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(100)))
                        .build(); // a failure bound: a wrongful wait ends after it
        timer.add(new CountingTask(5));
        clock.advanceMillis(5);
        timer.advanceClock(0); // the run due at 5 waits in the executor
        clock.advanceMillis(60_000); // a minute late
        CountDownLatch twoActions = new CountDownLatch(2);
        SystemTimerReaper reaper = SystemTimerReaper.start("pressed-reaper", timer, () -> {
            if (twoActions.getCount() > 0) {
                timer.add(new CountingTask(1_000_000));
                twoActions.countDown();
            }
        });
        try {
            assertThat(twoActions.await(30, TimeUnit.SECONDS)).isTrue();

            assertThat(timer.backPressureWaits()).as("adds from the reaper, the thread that drives the timer")
                    .isZero();
        } finally {
            reaper.close();
        }
    }
}
