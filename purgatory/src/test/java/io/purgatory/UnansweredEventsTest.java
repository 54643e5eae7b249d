package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.UserCode;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Events that found no wait (KeyedEvents X5, EventRetention X3, X4, KeyedWait V4),
 * on a manual timer: each kind, told once; the late window's edge and its eviction; early events
 * told when they leave their window unused; a listener that throws changes nothing.
 */
class UnansweredEventsTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<String> told = new ArrayList<>();
    private final List<Thread> toldOn = new ArrayList<>();
    private final UnansweredEventListener recording = (purgatory, key, value, kind) -> {
        told.add(purgatory + ":" + key + "=" + value + ":" + kind);
        toldOn.add(Thread.currentThread());
    };
    private KeyedWaits<String, String> waits;

    @AfterEach
    void close() {
        if (waits != null) {
            waits.close();
        }
        timer.close();
    }

    private KeyedWaitsBuilder builder() {
        return KeyedWaits.builder("payments").timer(timer).unansweredEvents(recording);
    }

    @Test
    void noWaitOnTheKey_theEventIsUnanswered_toldOnTheCallersThread() {
        waits = builder().build();
        CompletableFuture<String> other = waits.await("o2", Duration.ofSeconds(5));
        CompletableFuture<String> picky = waits.await("o3", Duration.ofSeconds(5), "PAID"::equals);

        assertThat(waits.complete("o1", "PAID")).isZero();
        assertThat(waits.complete("o3", "PENDING")).as("the predicate refuses it").isZero();
        assertThat(waits.complete("o2", "PAID")).isOne();

        assertThat(told).containsExactly("payments:o1=PAID:UNANSWERED", "payments:o3=PENDING:UNANSWERED");
        assertThat(toldOn).containsOnly(Thread.currentThread());
        assertThat(readings().eventsUnanswered()).isEqualTo(2);
        assertThat(readings().eventsLate()).isZero();
        assertThat(other).isCompletedWithValue("PAID");
        assertThat(picky).isNotDone();
    }

    @Test
    void positionedEvent_answeringNoWait_isUnanswered() {
        waits = builder().build();
        CompletableFuture<String> later = waits.on("cfg").atLeast(7).await(Duration.ofSeconds(5));

        assertThat(waits.complete("cfg", "v6", 6)).isZero();

        assertThat(told).containsExactly("payments:cfg=v6:UNANSWERED");
        assertThat(later).isNotDone();
    }

    @Test
    void eventAfterATimeoutOrCancelOnItsKey_isLate_untilTheWindowEnds() {
        waits = builder().lateEvents(Duration.ofSeconds(1), 100).build();
        CompletableFuture<String> timedOut = waits.await("o1", Duration.ofMillis(100));
        CompletableFuture<String> cancelled = waits.await("o2", Duration.ofSeconds(30));
        timer.advanceClock(100);
        cancelled.cancel(true);
        assertThat(timedOut).isCompletedExceptionally();

        waits.complete("o1", "PAID");
        waits.complete("o2", "PAID");
        waits.complete("o3", "PAID");
        timer.advanceClock(999); // o1's end is 999 ms old, o2's 999 ms old too: both still in the window
        waits.complete("o1", "PAID again");
        timer.advanceClock(1); // both windows end now
        waits.complete("o1", "PAID at last");
        waits.complete("o2", "PAID at last");

        assertThat(told).containsExactly("payments:o1=PAID:LATE", "payments:o2=PAID:LATE",
                "payments:o3=PAID:UNANSWERED", "payments:o1=PAID again:LATE", "payments:o1=PAID at last:UNANSWERED",
                "payments:o2=PAID at last:UNANSWERED");
        assertThat(readings().eventsLate()).isEqualTo(3);
        assertThat(readings().eventsUnanswered()).isEqualTo(3);
        assertThat(waits.events().ends().size()).isZero();
    }

    @Test
    void awaitAny_timingOut_makesEveryOneOfItsKeysLate() {
        waits = builder().lateEvents(Duration.ofSeconds(1), 100).build();
        var unused = waits.awaitAny(List.of("a", "b"), Duration.ofMillis(10), v -> true);
        timer.advanceClock(10);

        waits.complete("b", "x");
        waits.complete("a", "y");

        assertThat(told).containsExactly("payments:b=x:LATE", "payments:a=y:LATE");
    }

    @Test
    void anAnsweredWait_orOneEndedByClose_leavesNoEnd() {
        waits = builder().lateEvents(Duration.ofSeconds(1), 100).build();
        CompletableFuture<String> answered = waits.await("o1", Duration.ofSeconds(5));
        waits.complete("o1", "PAID");
        waits.complete("o1", "PAID twice");
        assertThat(answered).isCompletedWithValue("PAID");
        assertThat(told).containsExactly("payments:o1=PAID twice:UNANSWERED");

        var closing = waits.await("o2", Duration.ofSeconds(5));
        waits.close();
        assertThat(closing).isCompletedExceptionally();
        assertThat(waits.events().ends().size()).as("close remembers no end").isZero();
    }

    @Test
    void lateWindow_fullOfKeys_forgetsTheOldestEndFirst() {
        waits = builder().lateEvents(Duration.ofSeconds(10), 2).build();
        for (String key : List.of("o1", "o2", "o3")) {
            var unused = waits.await(key, Duration.ofMillis(10));
            timer.advanceClock(10);
        }
        assertThat(waits.events().ends().size()).isEqualTo(2);
        assertThat(waits.events().ends().evicted()).isOne();

        waits.complete("o1", "v");
        waits.complete("o2", "v");
        waits.complete("o3", "v");

        assertThat(told).containsExactly("payments:o1=v:UNANSWERED", "payments:o2=v:LATE", "payments:o3=v:LATE");
    }

    @Test
    void aKeysNewerEnd_replacesItsOlder_andStartsItsWindowAgain() {
        waits = builder().lateEvents(Duration.ofMillis(100), 10).build();
        var first = waits.await("o1", Duration.ofMillis(10));
        timer.advanceClock(60); // ended at 10
        var second = waits.await("o1", Duration.ofMillis(10));
        timer.advanceClock(60); // ended at 70: the end of 10 would have left at 110
        waits.complete("o1", "v");

        assertThat(told).containsExactly("payments:o1=v:LATE");
        assertThat(waits.events().ends().size()).isOne();
        assertThat(first).isCompletedExceptionally();
        assertThat(second).isCompletedExceptionally();
    }

    @Test
    void retainedEvent_leavingItsWindowUnused_isToldThenOnTheTimersThread() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        waits.complete("o1", "PAID");
        assertThat(told).as("it may still answer a wait within its window").isEmpty();

        timer.advanceClock(99);
        assertThat(told).isEmpty();
        timer.advanceClock(1);

        assertThat(told).containsExactly("payments:o1=PAID:UNANSWERED");
        assertThat(readings().eventsUnanswered()).isOne();
        assertThat(waits.retainedEvents()).isZero();
    }

    @Test
    void retainedEvent_thatAnswersAWaitRegisteredAfterIt_isNeverTold() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        waits.complete("o1", "PAID");
        assertThat(waits.await("o1", Duration.ofSeconds(5))).isCompletedWithValue("PAID");

        timer.advanceClock(100);

        assertThat(told).isEmpty();
        assertThat(readings().eventsRetainedHits()).isOne();
    }

    @Test
    void retainedEvent_refusedByTheWaitsPredicates_isToldWhenItLeaves() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        waits.complete("o1", "PENDING");
        var picky = waits.await("o1", Duration.ofSeconds(5), "PAID"::equals);

        timer.advanceClock(100);

        assertThat(told).containsExactly("payments:o1=PENDING:UNANSWERED");
        assertThat(picky).isNotDone();
    }

    @Test
    void retainedEvent_replacedByANewerOne_orEvictedForCapacity_isToldThen() {
        waits = builder().retainEvents(Duration.ofMillis(100), 2).build();
        waits.complete("o1", "PENDING");
        waits.complete("o1", "PAID");
        assertThat(told).containsExactly("payments:o1=PENDING:UNANSWERED");

        waits.complete("o2", "PAID");
        waits.complete("o3", "PAID"); // evicts o1's PAID, the oldest
        assertThat(told).containsExactly("payments:o1=PENDING:UNANSWERED", "payments:o1=PAID:UNANSWERED");
        assertThat(readings().eventsEvicted()).isOne();
    }

    @Test
    void retainedEvent_thatAnsweredWhenHandedOver_isNeverTold() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        var wait = waits.await("o1", Duration.ofSeconds(5));
        waits.complete("o1", "PAID");

        timer.advanceClock(100);

        assertThat(wait).isCompletedWithValue("PAID");
        assertThat(told).isEmpty();
    }

    @Test
    void lateEvent_retained_isToldLateOnce_neverUnansweredAfter() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).lateEvents(Duration.ofSeconds(1), 10).build();
        var timedOut = waits.await("o1", Duration.ofMillis(10));
        timer.advanceClock(10);

        waits.complete("o1", "PAID");
        assertThat(told).containsExactly("payments:o1=PAID:LATE");
        assertThat(waits.await("o1", Duration.ofSeconds(5))).as("a retry still gets it")
                .isCompletedWithValue("PAID");
        waits.complete("o1", "PAID twice"); // late too (the retry answered, it did not end unanswered)
        timer.advanceClock(100);

        assertThat(told).containsExactly("payments:o1=PAID:LATE", "payments:o1=PAID twice:LATE");
        assertThat(readings().eventsUnanswered()).isZero();
        assertThat(timedOut).isCompletedExceptionally();
    }

    @Test
    void retainedEvents_droppedByClose_areNotTold() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        waits.complete("o1", "PAID");

        waits.close();
        timer.advanceClock(100);

        assertThat(told).isEmpty();
    }

    @Test
    void listenerThatThrows_changesNothing_theEventIsCountedAndLogged() {
        List<Supplier<Throwable>> failures = List.of(() -> new IllegalStateException("listener failed"),
                () -> new AssertionError("listener error"), StackOverflowError::new);
        for (Supplier<Throwable> failure : failures) {
            ManualTimer t = new ManualTimer();
            UnansweredEventListener throwing = (p, k, v, kind) -> {
                Throwable thrown = failure.get();
                if (thrown instanceof RuntimeException r) {
                    throw r;
                }
                throw (Error) thrown;
            };
            try (LogCapture log = new LogCapture(UserCode.LOGGER);
                 KeyedWaits<String, String> w = KeyedWaits.builder("throwing").timer(t).unansweredEvents(throwing)
                         .retainEvents(Duration.ofMillis(100), 10).lateEvents(Duration.ofSeconds(1), 10).build()) {
                var timedOut = w.await("o-late", Duration.ofMillis(10));
                t.advanceClock(10);

                assertThat(w.complete("o-late", "v")).isZero();
                assertThat(w.complete("nobody", "v")).isZero();
                t.advanceClock(100); // "nobody" leaves its window unused: told on the timer's run
                CompletableFuture<String> next = w.await("k", Duration.ofSeconds(5));
                assertThat(w.complete("k", "v")).as("the waits go on").isOne();

                MetricsSource source = readings(w);
                assertThat(source.eventsLate()).isOne();
                assertThat(source.eventsUnanswered()).isOne();
                assertThat(next).isCompletedWithValue("v");
                assertThat(timedOut).isCompletedExceptionally();
                assertThat(log.events()).as("%s", failure.get()).hasSize(2).allSatisfy(e -> {
                    assertThat(e.getFormattedMessage()).contains("UnansweredEventListener threw")
                            .doesNotContain("nobody").doesNotContain("o-late"); // never a key
                    assertThat(e.getThrowableProxy().getClassName()).isEqualTo(failure.get().getClass().getName());
                });
            } finally {
                t.close();
            }
        }
    }

    @Test
    void unansweredEvents_withoutAListener_areCountedAlike() {
        waits = KeyedWaits.builder("quiet").timer(timer).lateEvents(Duration.ofSeconds(1), 10).build();
        var timedOut = waits.await("o1", Duration.ofMillis(10));
        timer.advanceClock(10);

        waits.complete("o1", "v");
        waits.complete("o2", "v");

        assertThat(readings().eventsLate()).isOne();
        assertThat(readings().eventsUnanswered()).isOne();
        assertThat(readings().countsEvents()).isTrue();
        assertThat(readings().retainsEvents()).isFalse();
        assertThat(timedOut).isCompletedExceptionally();
    }

    @Test
    void metricsSource_otherPurgatories_countNoEvents() {
        MetricsSource[] bound = new MetricsSource[1];
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("ops")
                .timer(timer).metrics(source -> {
                    bound[0] = source;
                    return new NoRecorder();
                }).build()) {
            assertThat(bound[0].countsEvents()).isFalse();
            assertThat(bound[0].eventsUnanswered()).isZero();
            assertThat(bound[0].eventsLate()).isZero();
            assertThat(p.name()).isEqualTo("ops");
        }
    }

    @Test
    void lateEvents_windowOrSizeNotPositive_isRefused() {
        KeyedWaitsBuilder b = KeyedWaits.builder("x");
        assertThatThrownBy(() -> b.lateEvents(Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("window must be positive: PT0S");
        assertThatThrownBy(() -> b.lateEvents(Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxKeys must be >= 1: 0");
        assertThatThrownBy(() -> b.unansweredEvents(null))
                .isInstanceOf(NullPointerException.class).hasMessage("listener");
    }

    private MetricsSource readings() {
        return readings(waits);
    }

    private static MetricsSource readings(KeyedWaits<?, ?> w) {
        return new MetricsSource(w.engine(), w.events());
    }

    /** A recorder that records nothing. */
    private static final class NoRecorder implements MetricsRecorder {
        @Override
        public void recordSettled(Outcome outcome, long watchedNanos) {
        }

        @Override
        public void recordLateness(long latenessNanos) {
        }

        @Override
        public void close() {
        }
    }

}
