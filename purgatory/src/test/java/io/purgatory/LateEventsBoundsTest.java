package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.internal.UserCode;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The late-event window of {@link KeyedWaits} ({@link KeyedWaitsBuilder#lateEvents}) and the
 * {@link UnansweredEventListener} under load and re-entry: memory stays bounded by
 * {@code maxKeys} however many keys end, on the map and on the timer; late and unanswered events
 * are counted exactly; a listener that calls back into the waits, or closes them, changes nothing
 * of the other events.
 */
class LateEventsBoundsTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<String> told = new ArrayList<>();
    private KeyedWaits<String, String> waits;

    @AfterEach
    void close() {
        if (waits != null) {
            waits.close();
        }
        timer.close();
    }

    private MetricsSource readings() {
        return new MetricsSource(waits.engine(), waits.events());
    }

    @Test
    void lateEvents_fiveThousandKeysTimingOut_remembersMaxKeysOnTheMapAndTheTimerAndCountsEachEventOnce() {
        waits = KeyedWaits.builder("many").timer(timer).lateEvents(Duration.ofSeconds(10), 10)
                .unansweredEvents((p, k, v, kind) -> told.add(k + ":" + kind)).build();
        for (int i = 0; i < 5_000; i++) {
            var unused = waits.await("k" + i, Duration.ofMillis(1));
        }
        timer.advanceClock(1);

        assertThat(waits.events().ends().size()).isEqualTo(10);
        assertThat(waits.events().ends().evicted()).isEqualTo(4_990);
        assertThat(timer.size()).as("one timer entry per key remembered, none for those forgotten").isEqualTo(10);
        for (int i = 0; i < 5_000; i++) {
            assertThat(waits.complete("k" + i, "v")).isZero();
        }
        assertThat(told.stream().filter(t -> t.endsWith(":LATE")).count()).as("told late").isEqualTo(10);
        assertThat(told).hasSize(5_000);
        assertThat(readings().eventsLate()).isEqualTo(10);
        assertThat(readings().eventsUnanswered()).isEqualTo(4_990);
        String remembered = told.stream().filter(t -> t.endsWith(":LATE")).findFirst().orElseThrow().split(":")[0];

        timer.advanceClock(10_000);

        assertThat(waits.events().ends().size()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(waits.complete(remembered, "v")).isZero();
        assertThat(told).last().isEqualTo(remembered + ":UNANSWERED");
    }

    /** A key whose hashCode can be made to throw after it was watched. */
    static final class FlakyKey {
        volatile boolean failing;

        @Override
        public int hashCode() {
            if (failing) {
                throw new IllegalStateException("hashCode failed");
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }
    }

    @Test
    void timeout_keyWhoseHashCodeFailsOnceWatched_theWaitStillTimesOutOnceAndTheWaitsGoOn() {
        KeyedWaits<Object, String> w = KeyedWaits.builder("flaky").timer(timer).lateEvents(Duration.ofSeconds(10), 10)
                .observer(new WaitObserverTest.Recording()).build();
        try {
            FlakyKey key = new FlakyKey();
            CompletableFuture<String> flaky = w.await(key, Duration.ofMillis(10));
            CompletableFuture<String> other = w.await("other", Duration.ofMillis(10));
            key.failing = true;

            try (LogCapture log = new LogCapture(UserCode.LOGGER)) {
                timer.advanceClock(10);
                assertThat(log.events()).as("the key's failure in the wait's onComplete, reported once")
                        .singleElement().satisfies(e -> assertThat(e.getThrowableProxy().getMessage())
                                .isEqualTo("hashCode failed"));
            }

            assertThat(flaky).isCompletedExceptionally();
            assertThat(other).isCompletedExceptionally();
            assertThat(catchCause(flaky)).isInstanceOf(WaitTimeoutException.class);
            assertThat(w.pending()).isZero();
            assertThat(w.events().ends().size()).as("the other key is remembered").isOne();
            CompletableFuture<String> next = w.await("next", Duration.ofSeconds(5));
            assertThat(w.complete("next", "v")).isOne();
            assertThat(next).isCompletedWithValue("v");
        } finally {
            w.close();
        }
        assertThat(timer.size()).isZero();
    }

    private static Throwable catchCause(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void listener_completesTheSameKeyAgainFromInsideItself_eachEventToldOnceAndCountedExactly() {
        int[] depth = {0};
        AtomicReference<KeyedWaits<String, String>> self = new AtomicReference<>();
        waits = KeyedWaits.builder("reentrant").timer(timer).lateEvents(Duration.ofSeconds(10), 10)
                .unansweredEvents((p, k, v, kind) -> {
                    told.add(k + "=" + v + ":" + kind);
                    if (depth[0] < 20) {
                        depth[0]++;
                        self.get().complete((String) k, "again" + depth[0]);
                    }
                }).build();
        self.set(waits);
        var timedOut = waits.await("late", Duration.ofMillis(10));
        timer.advanceClock(10);
        CompletableFuture<String> answeredByTheListener = waits.await("x", Duration.ofSeconds(5));

        assertThat(waits.complete("late", "first")).isZero();
        assertThat(waits.complete("x", "direct")).isOne();

        assertThat(told).hasSize(21).allSatisfy(t -> assertThat(t).endsWith(":LATE"));
        assertThat(readings().eventsLate()).isEqualTo(21);
        assertThat(readings().eventsUnanswered()).isZero();
        assertThat(answeredByTheListener).isCompletedWithValue("direct");
        assertThat(timedOut).isCompletedExceptionally();
    }

    @Test
    void listener_closesTheWaitsWhenARetainedEventLeavesUnused_closeReturnsAndTheOtherWaitsAreAnswered() {
        AtomicReference<KeyedWaits<String, String>> self = new AtomicReference<>();
        waits = KeyedWaits.builder("closing").timer(timer).retainEvents(Duration.ofMillis(100), 10)
                .lateEvents(Duration.ofSeconds(10), 10)
                .unansweredEvents((p, k, v, kind) -> {
                    told.add(k + ":" + kind);
                    self.get().close();
                }).build();
        self.set(waits);
        assertThat(waits.complete("early1", "v")).isZero();
        assertThat(waits.complete("early2", "v")).isZero();
        CompletableFuture<String> pending = waits.await("p", Duration.ofSeconds(5));

        timer.advanceClock(100); // both leave their window unused, on this (the timer's) thread

        assertThat(waits.isClosed()).isTrue();
        assertThat(pending).isDone();
        assertThat(told).as("the first told closes; the close drops the other, never told").hasSize(1);
        assertThat(waits.retainedEvents()).isZero();
        assertThat(timer.size()).isZero();
    }
}
