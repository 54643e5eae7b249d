package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code backPressure(lag)} on the purgatory's and the runtime's builders: the own timer's
 * back-pressure, so a thread submitting faster than the purgatory expires waits for the expiries.
 */
class BackPressureOptionTest {

    private static final long GENEROUS_SECONDS = 30;
    /** Enough to fall 50 ms behind many times over; without back-pressure the submitter ends here. */
    private static final int MAX_SUBMISSIONS = 1_000_000;

    @Test
    void backPressure_nullOrNotPositive_throwsNamingTheArgumentAndValue() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").backPressure(null))
                .isInstanceOf(NullPointerException.class).hasMessage("lag");
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").backPressure(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backPressure lag must be > 0: PT0S");
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").backPressure(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backPressure lag must be > 0: PT-0.005S");
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").backPressure(null))
                .isInstanceOf(NullPointerException.class).hasMessage("lag");
    }

    @Test
    void build_backPressureWithAGivenTimer_throwsIaeNamingIt() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").backPressure(Duration.ofMillis(10))
                .timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timer(...) cannot be combined with [backPressure]");
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").backPressure(Duration.ofMillis(10))
                .timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timer(...) cannot be combined with [backPressure]");
    }

    @Test
    void tryCompleteElseWatch_expiriesLateBeyondTheBound_submitterWaitsOnTheTimer() throws Exception {
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>(); // expiries never start: they fall behind
        DelayedOperationPurgatory<MockOperation> purgatory = DelayedOperationPurgatory.<MockOperation>builder("pressed")
                .expirationExecutor(handedOff::add).backPressure(Duration.ofMillis(50)).build();
        AssertSubmitterWaits.run(purgatory, handedOff);
    }

    @Test
    void tryCompleteElseWatch_onARuntimeWithBackPressure_submitterWaitsOnTheTimer() throws Exception {
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("pressed-runtime").expirationExecutor(handedOff::add)
                .backPressure(Duration.ofMillis(50)).build()) {
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
