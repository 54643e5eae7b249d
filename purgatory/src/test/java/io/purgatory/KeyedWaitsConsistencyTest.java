package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The future's answer, the counters and {@code complete}'s count agree, whatever ends a wait
 * first. Deterministic versions of the jcstress races KeyedWaitRaces: a dependent stage of the
 * future runs while the outside completion is in progress and ends the wait another way, which
 * must then find it ended; and events, outside completions, cancels, errors and expiries on
 * separate threads, after which each wait is answered once and counted once.
 */
class KeyedWaitsConsistencyTest {

    private final ManualTimer timer = new ManualTimer();
    private final KeyedWaits<String, Integer> waits = KeyedWaits.builder("consistency").timer(timer).build();

    @AfterEach
    void close() {
        waits.close();
    }

    @Test
    void cancel_eventArrivesWhileTheFutureIsCancelled_theEventFindsTheWaitEndedAndItIsCountedCancelled() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofSeconds(30));
        AtomicInteger delivered = new AtomicInteger(-1);
        CompletableFuture<Integer> unused = wait.whenComplete((v, e) -> delivered.set(waits.complete("k", 7)));

        boolean cancelled = wait.cancel(false);

        assertThat(cancelled).isTrue();
        assertThat(wait).isCancelled();
        assertThat(delivered).as("complete() delivered nothing").hasValue(0);
        assertCounted(0, 0, 1);
    }

    @Test
    void cancel_timeoutFiresWhileTheFutureIsCancelled_itIsCountedCancelled() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofMillis(5));
        CompletableFuture<Integer> unused = wait.whenComplete((v, e) -> timer.advanceClock(5));

        assertThat(wait.cancel(false)).isTrue();

        assertThat(wait).isCancelled();
        assertCounted(0, 0, 1);
    }

    @Test
    void cancel_closeWhileTheFutureIsCancelled_itIsCountedCancelled() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofSeconds(30));
        CompletableFuture<Integer> unused = wait.whenComplete((v, e) -> waits.close());

        assertThat(wait.cancel(false)).isTrue();

        assertThat(wait).isCancelled();
        assertCounted(0, 0, 1);
    }

    @Test
    void completeFromOutside_eventArrivesMeanwhile_theOutsideValueIsTheAnswerCountedCancelled() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofSeconds(30));
        AtomicInteger delivered = new AtomicInteger(-1);
        CompletableFuture<Integer> unused = wait.whenComplete((v, e) -> delivered.set(waits.complete("k", 7)));

        assertThat(wait.complete(9)).isTrue();

        assertThat(wait).isCompletedWithValue(9);
        assertThat(delivered).hasValue(0);
        assertCounted(0, 0, 1);
    }

    @Test
    void completeExceptionallyFromOutside_timeoutFiresMeanwhile_theOutsideErrorIsTheAnswerCountedCancelled() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofMillis(5));
        CompletableFuture<Integer> unused = wait.whenComplete((v, e) -> timer.advanceClock(5));

        assertThat(wait.completeExceptionally(new IllegalStateException("client gone"))).isTrue();

        assertThatThrownBy(wait::join).hasCauseInstanceOf(IllegalStateException.class);
        assertCounted(0, 0, 1);
    }

    @Test
    void cancel_afterTheEvent_returnsFalseAndTheValueStands() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofSeconds(30));
        assertThat(waits.complete("k", 7)).isEqualTo(1);

        assertThat(wait.cancel(true)).isFalse();
        assertThat(wait.complete(9)).isFalse();
        assertThat(wait.completeExceptionally(new IllegalStateException())).isFalse();

        assertThat(wait).isCompletedWithValue(7);
        assertCounted(1, 0, 0);
    }

    @Test
    void cancel_afterTheTimeout_returnsFalseAndTheTimeoutStands() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofMillis(5));
        timer.advanceClock(5);

        assertThat(wait.cancel(true)).isFalse();
        assertThat(wait.complete(9)).isFalse();

        assertThatThrownBy(wait::join).hasCauseInstanceOf(TimeoutException.class);
        assertCounted(0, 1, 0);
    }

    @Test
    void cancel_afterACompleteFromOutside_theFirstOutsideAnswerStands() {
        CompletableFuture<Integer> wait = waits.await("k", Duration.ofSeconds(30));

        assertThat(wait.complete(9)).isTrue();
        assertThat(wait.cancel(false)).isFalse();

        assertThat(wait).isCompletedWithValue(9);
        assertThatThrownBy(() -> wait.completeExceptionally(null)).isInstanceOf(NullPointerException.class);
        assertCounted(0, 0, 1);
    }

    @Test
    void cancel_fromADependentOfAnotherWait_theCancelledFutureIsDoneWhenCancelReturns() {
        CompletableFuture<Integer> first = waits.await("a", Duration.ofSeconds(30));
        CompletableFuture<Integer> second = waits.await("b", Duration.ofSeconds(30));
        AtomicInteger doneAfterCancel = new AtomicInteger(-1);
        CompletableFuture<Integer> unused = first.whenComplete((v, e) -> {
            second.cancel(false); // inside the first wait's callback: the second's onCancel is queued behind it
            doneAfterCancel.set(second.isDone() ? 1 : 0);
        });

        waits.complete("a", 7);

        assertThat(doneAfterCancel).as("Future.cancel: isDone once it returns").hasValue(1);
        assertThatThrownBy(second::join).isInstanceOf(CancellationException.class);
        assertCounted(1, 0, 1);
    }

    @Test
    void keyedWaits_eventsOutsideCompletionsCancelsErrorsAndExpiriesOnSeparateThreads_answerEachWaitOnceAndCountIt()
            throws Exception {
        for (int round = 0; round < 50; round++) {
            ManualTimer timer = new ManualTimer();
            KeyedWaits<String, String> waits = KeyedWaits.builder("keyed-race-" + round).timer(timer)
                    .retainEvents(Duration.ofMillis(5), 100).build();
            int n = 40;
            List<CompletableFuture<String>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(waits.on("k" + (i % 4)).orElse("fallback").await(Duration.ofMillis(5 + i % 3)));
            }
            List<ReliabilitySupport.Work> work = List.of(
                    () -> {
                        for (int k = 0; k < 4; k++) {
                            waits.complete("k" + k, "event");
                        }
                    },
                    () -> {
                        for (int i = 0; i < n; i += 3) {
                            futures.get(i).complete("outside");
                        }
                    },
                    () -> {
                        for (int i = 1; i < n; i += 3) {
                            futures.get(i).cancel(true);
                        }
                    },
                    () -> timer.advanceClock(6),
                    () -> waits.completeExceptionally("k1", new IllegalStateException("failed")));

            ReliabilitySupport.runConcurrently("keyed-race", work);
            timer.advanceClock(100);

            int events = 0;
            int outside = 0;
            int cancelled = 0;
            int fallbacks = 0;
            int errors = 0;
            for (CompletableFuture<String> f : futures) {
                assertThat(f).isDone();
                try {
                    switch (f.join()) {
                        case "event" -> events++;
                        case "outside" -> outside++;
                        case "fallback" -> fallbacks++;
                        default -> throw new AssertionError(f);
                    }
                } catch (CancellationException c) {
                    cancelled++;
                } catch (CompletionException e) {
                    errors++;
                }
            }
            PurgatoryStats stats = waits.stats();
            assertThat(stats.completed() + stats.completedAtOnce()).as("completed: events and errors")
                    .isEqualTo(events + errors);
            assertThat(stats.cancelled()).as("cancelled: from outside").isEqualTo(outside + cancelled);
            assertThat(stats.expired()).as("expired: fallbacks").isEqualTo(fallbacks);
            assertThat(waits.pending()).isZero();
            waits.close();
        }
    }

    private void assertCounted(long completed, long expired, long cancelled) {
        PurgatoryStats stats = waits.stats();
        assertThat(new long[] {stats.completed(), stats.expired(), stats.cancelled()})
                .as("completed, expired, cancelled").containsExactly(completed, expired, cancelled);
        assertThat(stats.pending()).isZero();
        assertThat(stats.watched()).isZero();
        assertThat(timer.size()).isZero();
        waits.engine().checkInvariants();
    }
}
