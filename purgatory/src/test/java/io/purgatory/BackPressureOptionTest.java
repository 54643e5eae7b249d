package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Back-pressure in the {@link TimerSettings} of the purgatory's and the runtime's builders: the own
 * timer's back-pressure, so a thread submitting faster than the purgatory expires waits for the
 * expiries.
 */
class BackPressureOptionTest {

    private static final long GENEROUS_SECONDS = 30;
    /** Enough to fall 50 ms behind many times over; without back-pressure the submitter ends here. */
    private static final int MAX_SUBMISSIONS = 1_000_000;

    @Test
    void withBackPressure_nullOrNegative_throwsNamingTheArgumentAndValue_zeroIsNone() {
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withBackPressure(null))
                .isInstanceOf(NullPointerException.class).hasMessage("backPressure");
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backPressure must be >= 0 (0: none): PT-0.005S");
        assertThatThrownBy(() -> new TimerSettings(1, 1024, null))
                .isInstanceOf(NullPointerException.class).hasMessage("backPressure");
        assertThat(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(10)).withBackPressure(Duration.ZERO)
                .hasBackPressure()).isFalse();
    }

    @Test
    void build_backPressuredSettingsWithAGivenTimer_throwsIaeNamingThem() {
        TimerSettings pressed = TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(10));
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").timerSettings(pressed)
                .timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timer(...) cannot be combined with [timerSettings]");
        assertThatThrownBy(() -> KeyedWaits.builder("w").timerSettings(pressed)
                .timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timer(...) cannot be combined with [timerSettings]");
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").timerSettings(pressed)
                .timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timer(...) cannot be combined with [timerSettings]");
    }

    @Test
    void tryCompleteElseWatch_expiriesLateBeyondTheBound_submitterWaitsOnTheTimer() throws Exception {
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>(); // expiries never start: they fall behind
        DelayedOperationPurgatory<MockOperation> purgatory = DelayedOperationPurgatory.<MockOperation>builder("pressed")
                .expirationExecutor(handedOff::add)
                        .timerSettings(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(50))).build();
        AssertSubmitterWaits.run(purgatory, handedOff);
    }

    @Test
    void tryCompleteElseWatch_onARuntimeWithBackPressure_submitterWaitsOnTheTimer() throws Exception {
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("pressed-runtime").expirationExecutor(handedOff::add)
                .timerSettings(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(50))).build()) {
            AssertSubmitterWaits.run(DelayedOperationPurgatory.<MockOperation>builder("on-runtime")
                    .runtime(runtime).build(), handedOff);
        }
    }

    /**
     * Submits 1 ms operations from a thread of its own, at most MAX_SUBMISSIONS, until it is seen
     * parked by the timer's back-pressure.
     */
    private static final class AssertSubmitterWaits {
        static void run(DelayedOperationPurgatory<MockOperation> purgatory, Queue<Runnable> handedOff)
                throws InterruptedException {
            AtomicBoolean stop = new AtomicBoolean();
            Thread submitter = new Thread(() -> {
                try {
                    for (int i = 0; i < MAX_SUBMISSIONS && !stop.get(); i++) {
                        purgatory.tryCompleteElseWatch(new MockOperation(1), List.of("k"));
                    }
                } catch (IllegalStateException closed) {
                    assertThat(stop.get()).as("refused only once the test closes the purgatory").isTrue();
                }
            }, "submitter");
            submitter.start();
            boolean parkedByTheTimer = false;
            try {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
                while (!parkedByTheTimer && submitter.isAlive() && System.nanoTime() < end) {
                    Object blocker = LockSupport.getBlocker(submitter);
                    parkedByTheTimer = blocker != null && blocker.getClass().getSimpleName().equals("BackPressure");
                    Thread.sleep(1);
                }
            } finally {
                stop.set(true);
                purgatory.close(); // ends any wait
                submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                handedOff.forEach(Runnable::run);
            }
            assertThat(parkedByTheTimer).as("the submitter waited for the late expiries").isTrue();
            assertThat(submitter.isAlive()).isFalse();
        }
    }
}
