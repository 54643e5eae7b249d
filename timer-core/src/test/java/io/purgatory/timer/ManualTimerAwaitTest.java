package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link ManualTimer#awaitScheduled}: the shipped way for a test to wait until code on another
 * thread has scheduled what the test will then expire by moving the clock.
 */
class ManualTimerAwaitTest {

    private final ManualTimer timer = new ManualTimer();

    @Test
    void awaitScheduled_anotherThreadAddsTheTask_returnsTrueAndTheClockHasNotMoved() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CountingTask task = new CountingTask(100);
        Thread adder = new Thread(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            timer.add(task);
        });
        adder.start();
        go.countDown();

        assertThat(timer.awaitScheduled(1, Duration.ofSeconds(30))).isTrue();

        assertThat(timer.clock().nanoTime()).isZero();
        assertThat(task.runs()).isZero();
        timer.advanceClock(100);
        assertThat(task.runs()).isEqualTo(1);
        adder.join();
    }

    @Test
    void awaitScheduled_nothingAdded_returnsFalseOnceTheTimeoutPassed() throws Exception {
        assertThat(timer.awaitScheduled(1, Duration.ofMillis(20))).isFalse();
    }

    @Test
    void awaitScheduled_enoughAlready_returnsTrueAtOnce() throws Exception {
        timer.add(new CountingTask(100));

        assertThat(timer.awaitScheduled(0, Duration.ZERO)).isTrue();
        assertThat(timer.awaitScheduled(1, Duration.ZERO)).isTrue();
    }

    @Test
    void awaitScheduled_badArguments_throwNamingThem() {
        assertThatThrownBy(() -> timer.awaitScheduled(-1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count must be >= 0: -1");
        assertThatNullPointerException().isThrownBy(() -> timer.awaitScheduled(1, null)).withMessage("timeout");
        assertThatThrownBy(() -> timer.awaitScheduled(1, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }

    @Test
    void awaitScheduled_interrupted_throwsInterruptedException() {
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> timer.awaitScheduled(1, Duration.ofSeconds(30)))
                .isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
    }

    /** A task that counts its runs. */
    private static final class CountingTask extends TimerTask {
        private int runs;

        CountingTask(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            runs++;
        }

        int runs() {
            return runs;
        }
    }
}
