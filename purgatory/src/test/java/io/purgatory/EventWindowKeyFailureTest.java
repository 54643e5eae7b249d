package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The windows of early events and of late-event memory ({@link KeyedWaitsBuilder#retainEvents},
 * {@link KeyedWaitsBuilder#lateEvents}) with a key whose {@code hashCode} throws once, at one
 * chosen moment: as its newer event replaces the retained one, or as its window ends on the timer.
 * Whatever it throws, each event is told once as what it was, and a window, once ended, answers
 * nothing and makes nothing late.
 */
class EventWindowKeyFailureTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<String> told = new ArrayList<>();
    private KeyedWaits<Object, String> waits;

    @AfterEach
    void close() {
        if (waits != null) {
            waits.close();
        }
        timer.close();
    }

    /** A key whose hashCode throws once, on the n-th call after {@link #failOnCall}. */
    static final class OnceFailingKey {
        private final AtomicInteger untilFailure = new AtomicInteger(-1);

        void failOnCall(int n) {
            untilFailure.set(n);
        }

        @Override
        public int hashCode() {
            if (untilFailure.get() > 0 && untilFailure.decrementAndGet() == 0) {
                throw new IllegalStateException("hashCode failed once");
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }

        @Override
        public String toString() {
            return "key";
        }
    }

    private KeyedWaitsBuilder builder() {
        return KeyedWaits.builder("windows").timer(timer)
                .unansweredEvents((p, k, v, kind) -> told.add(k + "=" + v + ":" + kind));
    }

    @Test
    void complete_keysHashCodeThrowsAsTheNewerEventIsPut_theOlderEventIsStillToldUnansweredOnce() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        OnceFailingKey key = new OnceFailingKey();
        waits.complete(key, "older");
        key.failOnCall(2); // 1: the retention's remove of the older event, 2: the put of the newer one

        assertThatThrownBy(() -> waits.complete(key, "newer")).hasMessageContaining("hashCode failed once");
        timer.advanceClock(100); // every window has ended

        assertThat(told).as("the older event answered no wait and left its window").containsExactly(
                "key=older:UNANSWERED");
        assertThat(waits.events().unanswered()).isOne();
        assertThat(waits.retainedEvents()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void windowEnd_keysHashCodeThrowsAsTheEarlyEventLeaves_itLeavesAndAnswersNoLaterWait() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        OnceFailingKey key = new OnceFailingKey();
        waits.complete(key, "early");
        key.failOnCall(1); // the retention's removal as the window ends, on the timer's thread

        timer.advanceClock(100); // the window ends
        timer.advanceClock(60_000); // a minute later
        CompletableFuture<String> muchLater = waits.await(key, Duration.ofSeconds(5));

        assertThat(muchLater).as("an event a minute old, its window of 100 ms long ended").isNotDone();
        assertThat(waits.retainedEvents()).isZero();
        assertThat(told).containsExactly("key=early:UNANSWERED");
    }

    @Test
    void lateWindowEnd_keysHashCodeThrowsAsTheEndLeaves_aLaterEventIsUnansweredNotLate() {
        waits = builder().lateEvents(Duration.ofMillis(100), 10).build();
        OnceFailingKey key = new OnceFailingKey();
        var timedOut = waits.await(key, Duration.ofMillis(10));
        timer.advanceClock(10); // the wait times out: its key is remembered for 100 ms
        assertThat(timedOut).isCompletedExceptionally();
        key.failOnCall(1); // the memory's removal as its window ends, on the timer's thread

        timer.advanceClock(100); // the window ends
        timer.advanceClock(60_000);
        waits.complete(key, "a minute later");

        assertThat(told).as("no wait on the key ended within the last 100 ms").containsExactly(
                "key=a minute later:UNANSWERED");
        assertThat(waits.events().ends().size()).isZero();
    }

    /** A key whose hashCode is what the test says: a mutable key changed after its event. */
    static final class ChangingKey {
        volatile int hash = 7;

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }

        @Override
        public String toString() {
            return "changing";
        }
    }

    @Test
    void windowEnd_keysHashCodeChangedSinceTheEvent_theEventLeavesAndIsToldUnansweredOnce() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        ChangingKey key = new ChangingKey();
        waits.complete(key, "early");
        key.hash = 8; // as a watched key may change: its operations still leave every list at their settle

        timer.advanceClock(100); // the window ends

        assertThat(timer.size()).isZero();
        assertThat(waits.retainedEvents()).as("retained events, none of them with a window on the timer").isZero();
        assertThat(told).containsExactly("changing=early:UNANSWERED");
    }
}
