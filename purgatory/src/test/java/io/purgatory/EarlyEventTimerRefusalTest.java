package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Early events ({@link KeyedWaitsBuilder#retainEvents}) on a user's timer whose {@code add}
 * fails with something other than the closed timer's {@link IllegalStateException}: the event
 * cannot be kept for its window, but the waits registered on its key when it arrives still get
 * it, as they would without retention.
 */
class EarlyEventTimerRefusalTest {

    /** Keeps its tasks on a manual timer whose clock stands still; refuses adds while {@link #refusing} is set. */
    static final class RefusingTimer implements Timer {
        final ManualTimer inner = new ManualTimer();
        volatile boolean refusing;

        @Override
        public void add(TimerTask task) {
            if (refusing) {
                throw new UnsupportedOperationException("the timer refuses adds");
            }
            inner.add(task);
        }

        /** The purgatory's reaper calls this in a loop: time stands still, as on a manual clock nobody moves. */
        @Override
        public boolean advanceClock(long timeoutMs) throws InterruptedException {
            Thread.sleep(Math.min(timeoutMs, 10));
            return false;
        }

        @Override
        public int size() {
            return inner.size();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void complete_timerRefusesTheEventsWindow_theWaitsOnTheKeyAreStillAnswered() {
        RefusingTimer timer = new RefusingTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("refused").timer(timer)
                .retainEvents(Duration.ofSeconds(1), 10).build();
        try {
            CompletableFuture<String> waiting = waits.await("k", Duration.ofSeconds(30));
            timer.refusing = true;

            int answered;
            try {
                answered = waits.complete("k", "v");
            } catch (RuntimeException refused) {
                answered = -1;
            }

            assertThat(waiting).as("a wait registered before the event, which needs no timer to answer it")
                    .isCompletedWithValue("v");
            assertThat(answered).isOne();
            assertThat(waits.pending()).isZero();
        } finally {
            timer.refusing = false;
            waits.close();
            timer.close();
        }
    }
}
