package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Early events ({@link KeyedWaitsBuilder#retainEvents}) on a user's timer whose {@code add}
 * fails with something other than the closed timer's {@link IllegalStateException} (a
 * RuntimeException, an Error, a real StackOverflowError): the event cannot be kept for its window,
 * but the waits registered on its key when it arrives still get it, as they would without
 * retention; likewise a late-event memory whose window the timer refuses remembers nothing.
 */
class EarlyEventTimerRefusalTest {

    /** Keeps its tasks on a manual timer whose clock stands still; refuses adds while {@link #refusing} is set. */
    static final class RefusingTimer implements Timer {
        final ManualTimer inner = new ManualTimer();
        volatile boolean refusing;
        /** How an add refuses: a RuntimeException, an Error or a real StackOverflowError. */
        volatile String how = "runtime";

        @Override
        public void add(TimerEntry task) {
            if (refusing) {
                switch (how) {
                    case "error" -> throw new AssertionError("the timer refuses adds");
                    case "overflow" -> FaultMatrixTest.Injector.recurse(0);
                    default -> throw new UnsupportedOperationException("the timer refuses adds");
                }
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

    @ParameterizedTest
    @ValueSource(strings = {"runtime", "error", "overflow"})
    void complete_timerRefusesTheEventsWindow_theWaitsOnTheKeyAreStillAnswered(String how) {
        RefusingTimer timer = new RefusingTimer();
        timer.how = how;
        KeyedWaits<String, String> waits = KeyedWaits.builder("refused").timer(timer)
                .retainEvents(Duration.ofSeconds(1), 10).build();
        try {
            CompletableFuture<String> waiting = waits.await("k", Duration.ofSeconds(30));
            timer.refusing = true;

            int answered;
            try {
                answered = waits.complete("k", "v");
            } catch (RuntimeException | Error refused) {
                answered = -1;
            }

            assertThat(waiting).as("a wait registered before the event, which needs no timer to answer it")
                    .isCompletedWithValue("v");
            assertThat(answered).isOne();
            assertThat(waits.pending()).isZero();
            assertThat(waits.retainedEvents()).as("not kept: nothing would end its window").isZero();
        } finally {
            timer.refusing = false;
            waits.close();
            timer.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"runtime", "error", "overflow"})
    void lateEvents_timerRefusesAnEndsWindow_theWaitEndsAndALaterEventIsUnansweredNotLate(String how) {
        RefusingTimer timer = new RefusingTimer();
        timer.how = how;
        List<String> told = new ArrayList<>();
        KeyedWaits<String, String> waits = KeyedWaits.builder("refused").timer(timer)
                .lateEvents(Duration.ofSeconds(30), 10)
                .unansweredEvents((purgatory, key, value, kind) -> told.add(key + "=" + value + ":" + kind)).build();
        try {
            CompletableFuture<String> waiting = waits.await("k", Duration.ofSeconds(30));
            timer.refusing = true;

            assertThat(waiting.cancel(false)).isTrue(); // its end would be remembered on the timer

            assertThat(waits.pending()).isZero();
            assertThat(waits.complete("k", "v")).isZero();
            assertThat(told).as("nothing remembered: unanswered, not late").containsExactly("k=v:UNANSWERED");
        } finally {
            timer.refusing = false;
            waits.close();
            timer.close();
        }
    }
}
