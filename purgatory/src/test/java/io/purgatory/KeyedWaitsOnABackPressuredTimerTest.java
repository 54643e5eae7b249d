package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualClock;
import io.purgatory.timer.SystemTimer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyedWaits} with early events on a {@link SystemTimer} with back-pressure
 * ({@link SystemTimer.Builder#backPressure}): an event's window is a timer entry, so a
 * {@code complete} may wait for expiries to catch up. It must not hold a lock the timer's own
 * threads need to catch up (back-pressure: "the timer's own threads never wait"), or the timer
 * could not catch up and every add would wait its whole bound.
 */
class KeyedWaitsOnABackPressuredTimerTest {

    private static final long BOUND_SECONDS = 60;
    private static final long JOIN_SECONDS = 10;

    @Test
    void complete_waitingForBackPressure_doesNotBlockTheTimersThreadExpiringAnotherEvent() throws Exception {
        ManualClock clock = new ManualClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer timer = SystemTimer.builder("pressed").clock(clock).executor(handedOff::add)
                .backPressure(Duration.ofSeconds(BOUND_SECONDS)).build();
        KeyedWaits<String, String> waits = KeyedWaits.builder("early").timer(timer)
                .retainEvents(Duration.ofMillis(10), 100).build();
        Thread completer = null;
        Thread executor = null;
        try {
            for (int i = 0; i < 40; i++) {
                assertThat(waits.complete("early-" + i, "v")).isZero(); // retained until 10
            }
            clock.advanceMillis(10);
            timer.advanceClock(0); // their windows' ends wait in the executor, in two runs
            assertThat(handedOff).hasSize(2);
            clock.advanceMillis(2 * TimeUnit.SECONDS.toMillis(BOUND_SECONDS)); // expiries run 120 s late

            completer = new Thread(() -> waits.complete("second", "v"), "completer");
            completer.start();
            awaitState(completer, Thread.State.TIMED_WAITING); // its add waits for the expiries
            executor = new Thread(handedOff.poll(), "pressed-executor"); // the first run
            executor.start();
            executor.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));

            assertThat(executor.isAlive()).as("the timer's thread, ending an early event's window, is %s",
                    executor.getState()).isFalse();
        } finally {
            timer.close(); // ends any wait
            handedOff.forEach(Runnable::run);
            waits.close();
            if (completer != null) {
                completer.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
            }
            if (executor != null) {
                executor.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
            }
        }
    }

    private static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOIN_SECONDS);
        while (thread.getState() != state && thread.isAlive() && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(thread.getState()).isEqualTo(state);
    }
}
