package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every path of a keyed wait, on a manual timer: events, predicates, timeouts, cancels, close, early events. */
class KeyedWaitsTest {

    record Order(String id, String status) {
        boolean paid() {
            return status.equals("PAID");
        }
    }

    private final ManualTimer timer = new ManualTimer();
    private final List<String> errors = new ArrayList<>();
    private final KeyedWaits<String, Order> waits = KeyedWaits.builder("orders").timer(timer)
            .errorHandler((name, op, callback, error) -> errors.add(callback + ": " + error.getMessage()))
            .build();

    @AfterEach
    void close() {
        waits.close();
    }

    @Test
    void complete_keyWithAWait_answersItOnceWithTheValue() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30));
        assertThat(wait).isNotDone();
        assertThat(waits.pending()).isEqualTo(1);

        Order paid = new Order("o1", "PAID");
        assertThat(waits.complete("o1", paid)).isEqualTo(1);

        assertThat(wait).isCompletedWithValue(paid);
        assertNothingPending();
        assertThat(waits.stats().completed()).isEqualTo(1);
        assertThat(waits.complete("o1", paid)).as("the wait is answered once").isZero();
    }

    @Test
    void complete_keyWithTwoWaits_answersBothAndLeavesOtherKeysUntouched() {
        CompletableFuture<Order> a = waits.await("o1", Duration.ofSeconds(30));
        CompletableFuture<Order> b = waits.await("o1", Duration.ofSeconds(5));
        CompletableFuture<Order> other = waits.await("o2", Duration.ofSeconds(30));

        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isEqualTo(2);

        assertThat(a).isCompleted();
        assertThat(b).isCompleted();
        assertThat(other).isNotDone();
        assertThat(waits.pending()).isEqualTo(1);
    }

    @Test
    void complete_waitWithAPredicate_isAnsweredOnlyByAnEventItAccepts() {
        CompletableFuture<Order> paid = waits.await("o1", Duration.ofSeconds(30), Order::paid);
        CompletableFuture<Order> any = waits.await("o1", Duration.ofSeconds(30));

        Order created = new Order("o1", "CREATED");
        assertThat(waits.complete("o1", created)).isEqualTo(1);
        assertThat(any).isCompletedWithValue(created);
        assertThat(paid).isNotDone();

        Order done = new Order("o1", "PAID");
        assertThat(waits.complete("o1", done)).isEqualTo(1);
        assertThat(paid).isCompletedWithValue(done);
        assertNothingPending();
    }

    @Test
    void awaitAny_severalKeys_takesTheFirstAcceptedEventOnAnyAndLeavesThemAll() {
        CompletableFuture<Order> wait = waits.awaitAny(List.of("o1", "o2", "o3"), Duration.ofSeconds(30),
                Order::paid);
        assertThat(waits.stats().watched()).isEqualTo(3);

        assertThat(waits.complete("o2", new Order("o2", "CREATED"))).isZero();
        Order paid = new Order("o3", "PAID");
        assertThat(waits.complete("o3", paid)).isEqualTo(1);

        assertThat(wait).isCompletedWithValue(paid);
        assertNothingPending();
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isZero();
    }

    @Test
    void onAny_duplicateKeys_watchesOneKey() {
        CompletableFuture<Order> wait = waits.onAny(List.of("o1", "o1")).await(Duration.ofSeconds(30));
        assertThat(waits.stats().watched()).isEqualTo(1);
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isEqualTo(1);
        assertThat(wait).isDone();
    }

    @Test
    void await_timeoutReached_failsTheFutureWithATimeoutException() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofMillis(500));
        timer.advanceClock(499);
        assertThat(wait).isNotDone();

        timer.advanceClock(1);

        assertThat(wait).isCompletedExceptionally();
        assertThatThrownBy(wait::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(TimeoutException.class)
                .hasMessageContaining("'orders' within 500 ms")
                .cause().isInstanceOfSatisfying(WaitTimeoutException.class, e -> assertThat(e.closed()).isFalse());
        assertNothingPending();
        assertThat(waits.stats().expired()).isEqualTo(1);
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isZero();
    }

    @Test
    void orElse_timeoutReached_answersWithTheFallbackInstead() {
        Order unpaid = new Order("o1", "UNPAID");
        CompletableFuture<Order> wait = waits.on("o1").until(Order::paid).orElse(unpaid)
                .await(Duration.ofMillis(100));
        CompletableFuture<Order> nullFallback = waits.on("o1").orElse(null).await(Duration.ofMillis(100));

        timer.advanceClock(100);

        assertThat(wait).isCompletedWithValue(unpaid);
        assertThat(nullFallback).isCompletedWithValue(null);
        assertThat(waits.stats().expired()).isEqualTo(2);
    }

    @Test
    void await_subMillisecondOrZeroTimeout_roundsUpOrIsDueAtOnce() {
        CompletableFuture<Order> tiny = waits.await("o1", Duration.ofNanos(1));
        CompletableFuture<Order> zero = waits.await("o1", Duration.ZERO);
        assertThat(tiny).isNotDone();
        assertThat(zero).isCompletedExceptionally();

        timer.advanceClock(1);
        assertThat(tiny).isCompletedExceptionally();
    }

    @Test
    void await_foreverTimeout_neverExpires() {
        CompletableFuture<Order> wait = waits.await("o1", ChronoUnit.FOREVER.getDuration());
        timer.advanceClock(TimeUnit.DAYS.toMillis(365));
        assertThat(wait).isNotDone();
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isEqualTo(1);
        assertThat(wait).isDone();
    }

    @Test
    void cancel_pendingWait_endsItAtOnceCountedAsCancelled() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30));
        assertThat(timer.size()).isEqualTo(1);

        assertThat(wait.cancel(true)).isTrue();

        assertThat(wait).isCancelled();
        assertNothingPending();
        assertThat(timer.size()).as("off the timer at once").isZero();
        assertThat(waits.stats().cancelled()).isEqualTo(1);
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isZero();
    }

    @Test
    void completeFromOutside_valueErrorTimeoutOrObtrude_endsTheWaitToo() {
        CompletableFuture<Order> byValue = waits.await("o1", Duration.ofSeconds(30));
        CompletableFuture<Order> byError = waits.await("o2", Duration.ofSeconds(30));
        CompletableFuture<Order> byOrTimeout = waits.await("o3", Duration.ofSeconds(30));
        CompletableFuture<Order> obtruded = waits.await("o4", Duration.ofSeconds(30));

        byValue.complete(new Order("o1", "LOCAL"));
        byError.completeExceptionally(new IllegalStateException("client gone"));
        byOrTimeout.orTimeout(1, TimeUnit.NANOSECONDS).exceptionally(e -> null).join();
        obtruded.obtrudeValue(null);

        assertNothingPending();
        assertThat(waits.stats().cancelled()).isEqualTo(4);
        assertThat(byValue).isCompletedWithValue(new Order("o1", "LOCAL"));
    }

    @Test
    void completeExceptionally_keyWithTwoWaits_failsBoth() {
        CompletableFuture<Order> a = waits.await("o1", Duration.ofSeconds(30), Order::paid);
        CompletableFuture<Order> b = waits.await("o1", Duration.ofSeconds(30));

        assertThat(waits.completeExceptionally("o1", new IllegalStateException("order deleted"))).isEqualTo(2);

        assertThatThrownBy(a::join).hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("deleted");
        assertThatThrownBy(b::join).hasCauseInstanceOf(IllegalStateException.class);
        assertNothingPending();
    }

    @Test
    void complete_predicateThrows_isNotThisValueAndIsReported() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30), o -> {
            if (o.status().equals("BAD")) {
                throw new IllegalArgumentException("bad status");
            }
            return o.paid();
        });

        assertThat(waits.complete("o1", new Order("o1", "BAD"))).isZero();
        assertThat(wait).isNotDone();
        assertThat(errors).containsExactly("TRY_COMPLETE: bad status");

        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isEqualTo(1);
        assertThat(wait).isDone();
    }

    @Test
    void complete_nullValue_answersTheWaitWithNull() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30));
        assertThat(waits.complete("o1", null)).isEqualTo(1);
        assertThat(wait).isCompletedWithValue(null);
    }

    @Test
    void complete_dependentStageCompletesAnotherKey_theNestedAnswerRunsAfterTheStage() {
        CompletableFuture<Order> second = waits.await("o2", Duration.ofSeconds(30));
        CompletableFuture<Order> first = waits.await("o1", Duration.ofSeconds(30));
        List<String> order = new ArrayList<>();
        CompletableFuture<Void> firstDone = first.thenAccept(o -> {
            order.add("first");
            waits.complete("o2", new Order("o2", "PAID"));
            order.add("after nested complete");
        });
        CompletableFuture<Void> secondDone = second.thenAccept(o -> order.add("second"));

        waits.complete("o1", new Order("o1", "PAID"));

        assertThat(firstDone).isDone();
        assertThat(secondDone).isDone();
        assertThat(order).containsExactly("first", "after nested complete", "second");
    }

    @Test
    void close_defaultPolicy_answersEveryWaitAsATimeout() {
        CompletableFuture<Order> plain = waits.await("o1", Duration.ofSeconds(30));
        CompletableFuture<Order> fallback = waits.on("o2").orElse(new Order("o2", "UNKNOWN"))
                .await(Duration.ofSeconds(30));

        waits.close();

        assertThatThrownBy(plain::join).hasCauseInstanceOf(TimeoutException.class).hasMessageContaining("closed")
                .cause().isInstanceOfSatisfying(WaitTimeoutException.class, e -> assertThat(e.closed()).isTrue());
        assertThat(fallback).isCompletedWithValue(new Order("o2", "UNKNOWN"));
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isZero();
        assertThat(waits.await("o1", Duration.ofSeconds(1))).as("a failed future, not a throw")
                .failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(IllegalStateException.class).withMessageContaining("orders");
    }

    @Test
    void close_cancelPolicy_cancelsEveryWait() {
        KeyedWaits<String, Order> cancelling = KeyedWaits.builder("c").timer(timer)
                .closePolicy(ClosePolicy.CANCEL).build();
        CompletableFuture<Order> wait = cancelling.await("o1", Duration.ofSeconds(30));
        cancelling.close();
        assertThat(wait).isCancelled();
        assertThat(cancelling.stats().cancelled()).isEqualTo(1);
    }

    @Test
    void build_completeClosePolicy_isRefusedForItHasNoValue() {
        assertThatThrownBy(() -> KeyedWaits.builder("c").closePolicy(ClosePolicy.COMPLETE).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("COMPLETE");
    }

    @Test
    void await_beyondMaxPending_returnsAFutureFailedAsFull() {
        try (KeyedWaits<String, Order> small = KeyedWaits.builder("small").timer(timer).maxPending(1).build()) {
            assertThat(small.await("o1", Duration.ofSeconds(30))).isNotDone();
            assertThat(small.await("o2", Duration.ofSeconds(30))).as("a failed future, not a throw")
                    .failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                    .havingCause().isInstanceOf(PurgatoryFullException.class);
            assertThat(small.on("o3").await(Duration.ofSeconds(30))).isCompletedExceptionally();
            assertThat(small.pending()).isEqualTo(1);
            assertThat(small.stats().rejected()).isEqualTo(2);
        }
    }

    @Test
    void keyedWaits_badArguments_areNamed() {
        assertThatThrownBy(() -> waits.await(null, Duration.ofSeconds(1))).hasMessage("key");
        assertThatThrownBy(() -> waits.await("o1", null)).hasMessage("timeout");
        assertThatThrownBy(() -> waits.on("o1").until(null)).hasMessage("until");
        assertThatThrownBy(() -> waits.onAny(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> waits.complete(null, null)).hasMessage("key");
        assertThatThrownBy(() -> waits.completeExceptionally("o1", null)).hasMessage("error");
        assertThatThrownBy(() -> KeyedWaits.builder("x").retainEvents(Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThatThrownBy(() -> KeyedWaits.builder("x").retainEvents(Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntries must be >= 1: 0");
        assertThat(waits.pending()).isZero();
    }

    @Test
    void runtime_twoWaitsOnOneRuntime_keepTheirOwnCountersAndClose() {
        ManualTimer shared = new ManualTimer();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("shared").timer(shared).build();
        try {
            KeyedWaits<String, Order> a = KeyedWaits.builder("a").runtime(runtime)
                    .retainEvents(Duration.ofSeconds(5), 10).build();
            KeyedWaits<String, Order> b = KeyedWaits.builder("b").runtime(runtime).build();
            CompletableFuture<Order> waitA = a.await("o1", Duration.ofSeconds(30));
            CompletableFuture<Order> waitB = b.await("o1", Duration.ofSeconds(1));
            a.complete("o2", new Order("o2", "PAID"));

            shared.advanceClock(1_000);
            assertThat(waitB).isCompletedExceptionally();
            assertThat(b.stats().expired()).isEqualTo(1);
            assertThat(a.stats().expired()).isZero();

            b.close();
            assertThat(waitA).isNotDone();
            shared.advanceClock(4_000);
            assertThat(a.retainedEvents()).as("expired by the shared timer").isZero();

            runtime.close();
            assertThat(a.isClosed()).isTrue();
            assertThat(waitA).isCompletedExceptionally();
        } finally {
            runtime.close();
        }
    }

    // ---- positions ----

    @Test
    void atLeast_eventsBelowAtAndWithoutAPosition_answeredOnlyByOneThatReachesIt() {
        KeyedWaits<String, Integer> versions = KeyedWaits.builder("config").timer(timer).build();
        try (versions) {
            CompletableFuture<Integer> v7 = versions.on("app").atLeast(7).await(Duration.ofSeconds(30));
            CompletableFuture<Integer> v9 = versions.on("app").atLeast(9).await(Duration.ofSeconds(30));
            CompletableFuture<Integer> any = versions.await("app", Duration.ofSeconds(30));

            assertThat(versions.complete("app", 6, 6)).as("the plain wait only").isEqualTo(1);
            assertThat(any).isCompletedWithValue(6);
            assertThat(versions.complete("app", 100)).as("no position: no positioned wait").isZero();
            assertThat(versions.complete("app", 8, 8)).isEqualTo(1);
            assertThat(v7).isCompletedWithValue(8);
            assertThat(v9).isNotDone();
            assertThat(versions.complete("app", 9, 9)).isEqualTo(1);
            assertThat(v9).isCompletedWithValue(9);
            versions.engine().checkInvariants();
        }
    }

    @Test
    void atLeast_withAPredicateAnErrorOrACancel_behavesAsAnyOtherWait() {
        KeyedWaits<String, Integer> versions = KeyedWaits.builder("config").timer(timer).build();
        try (versions) {
            CompletableFuture<Integer> even = versions.on("app").atLeast(2).until(v -> v % 2 == 0)
                    .await(Duration.ofSeconds(30));
            CompletableFuture<Integer> failed = versions.on("app").atLeast(50).await(Duration.ofSeconds(30));
            CompletableFuture<Integer> cancelled = versions.on("app").atLeast(50).await(Duration.ofSeconds(30));

            assertThat(versions.complete("app", 3, 3)).isZero();
            assertThat(versions.complete("app", 4, 4)).isEqualTo(1);
            assertThat(even).isCompletedWithValue(4);
            cancelled.cancel(false);
            assertThat(versions.completeExceptionally("app", new IllegalStateException("deleted"))).isEqualTo(1);
            assertThat(failed).isCompletedExceptionally();
            assertThat(versions.pending()).isZero();
            versions.engine().checkInvariants();
        }
    }

    @Test
    void atLeast_retainedEvent_answersOnlyIfItReachesThePosition() {
        KeyedWaits<String, Integer> versions = KeyedWaits.builder("config").timer(timer)
                .retainEvents(Duration.ofSeconds(10), 10).build();
        try (versions) {
            versions.complete("app", 7, 7);
            assertThat(versions.on("app").atLeast(7).await(Duration.ofSeconds(30))).isCompletedWithValue(7);
            assertThat(versions.on("app").atLeast(8).await(Duration.ofSeconds(30))).isNotDone();
            versions.complete("app", 100);
            assertThat(versions.on("app").atLeast(1).await(Duration.ofSeconds(30)))
                    .as("an event without a position reaches none").isNotDone();
        }
    }

    @Test
    void atLeast_severalKeysOrLongMinValue_isRefused() {
        assertThatThrownBy(() -> waits.onAny(List.of("a", "b")).atLeast(1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one key");
        assertThatThrownBy(() -> waits.on("a").atLeast(Long.MIN_VALUE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position");
        assertThatThrownBy(() -> waits.complete("a", null, Long.MIN_VALUE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position");
    }

    // ---- early events ----

    @Test
    void retainEvents_eventJustBeforeItsWait_answersItWithinTheWindow() {
        try (KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100)) {
            Order paid = new Order("o1", "PAID");
            assertThat(early.complete("o1", paid)).as("no wait yet").isZero();
            assertThat(early.retainedEvents()).isEqualTo(1);

            timer.advanceClock(9_999);
            CompletableFuture<Order> wait = early.await("o1", Duration.ofSeconds(30));

            assertThat(wait).isCompletedWithValue(paid);
            assertThat(early.pending()).isZero();
            assertThat(early.stats().completedAtOnce()).isEqualTo(1);
            assertThat(early.retainedEvents()).as("kept for later waits too").isEqualTo(1);
        }
    }

    @Test
    void retainEvents_windowPassed_nothingIsRetained() {
        try (KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100)) {
            early.complete("o1", new Order("o1", "PAID"));
            timer.advanceClock(10_000);

            assertThat(early.retainedEvents()).isZero();
            assertThat(timer.size()).isZero();
            CompletableFuture<Order> wait = early.await("o1", Duration.ofSeconds(30));
            assertThat(wait).isNotDone();
        }
    }

    @Test
    void retainEvents_predicateOfTheWait_onlyAnAcceptedRetainedEventAnswersIt() {
        try (KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100)) {
            early.complete("o1", new Order("o1", "CREATED"));
            assertThat(early.await("o1", Duration.ofSeconds(30), Order::paid)).isNotDone();

            early.complete("o1", new Order("o1", "PAID")); // replaces the key's last event
            assertThat(early.retainedEvents()).isEqualTo(1);
            assertThat(early.pending()).as("the pending wait took the new event").isZero();
            assertThat(early.await("o1", Duration.ofSeconds(30), Order::paid)).isDone();
        }
    }

    @Test
    void retainEvents_newerEventOnTheKey_restartsItsWindow() {
        try (KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100)) {
            early.complete("o1", new Order("o1", "CREATED"));
            timer.advanceClock(6_000);
            early.complete("o1", new Order("o1", "PAID"));
            timer.advanceClock(6_000);

            assertThat(early.retainedEvents()).isEqualTo(1);
            assertThat(early.await("o1", Duration.ofSeconds(30))).isCompletedWithValue(new Order("o1", "PAID"));
            assertThat(timer.size()).as("the replaced event's expiry was cancelled").isEqualTo(1);
        }
    }

    @Test
    void isWait_anyFuture_trueOnlyForTheFuturesAwaitReturns() {
        try (KeyedWaits<String, Order> waits = KeyedWaits.builder("is-wait").timer(timer).build()) {
            CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30));
            CompletableFuture<Order> fallback = waits.on("o1").orElse(null).await(Duration.ofSeconds(30));

            assertThat(KeyedWaits.isWait(wait)).isTrue();
            assertThat(KeyedWaits.isWait(fallback)).isTrue();
            assertThat(KeyedWaits.isWait(wait.thenApply(Order::status))).isFalse();
            assertThat(KeyedWaits.isWait(new CompletableFuture<Order>())).isFalse();
            assertThat(KeyedWaits.isWait(null)).isFalse();
        }
    }

    @Test
    void retainEvents_beyondMaxEntries_evictsTheOldestAndCountsIt() {
        RecordingMetrics metrics = new RecordingMetrics();
        try (KeyedWaits<String, Order> early = KeyedWaits.builder("bounded").timer(timer)
                .retainEvents(Duration.ofSeconds(10), 2).metrics(metrics).build()) {
            early.complete("o1", new Order("o1", "PAID"));
            early.complete("o2", new Order("o2", "PAID"));
            early.complete("o1", new Order("o1", "SHIPPED")); // o1 becomes the newest
            early.complete("o3", new Order("o3", "PAID")); // evicts o2

            assertThat(early.retainedEvents()).isEqualTo(2);
            assertThat(early.await("o2", Duration.ofSeconds(30))).isNotDone();
            assertThat(early.await("o1", Duration.ofSeconds(30))).isDone();
            MetricsSource source = metrics.of("bounded").source;
            assertThat(source.retainsEvents()).isTrue();
            assertThat(source.eventsRetained()).isEqualTo(2);
            assertThat(source.eventsEvicted()).isEqualTo(1);
            assertThat(source.eventsRetainedHits()).isEqualTo(1);
            assertThat(early.retentionWindow()).isEqualTo(Duration.ofSeconds(10));
            assertThat(timer.size()).as("two expiries, and the pending wait's timeout").isEqualTo(3);
        }
        assertThat(metrics.of("bounded").isClosed()).as("removed on close").isTrue();
    }

    @Test
    void close_retainedEvents_dropsThem() {
        KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100);
        early.complete("o1", new Order("o1", "PAID"));
        early.close();
        assertThat(early.retainedEvents()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void awaitAny_eventRetainedForOneOfItsKeys_isAnsweredByIt() {
        try (KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100)) {
            early.complete("o2", new Order("o2", "PAID"));
            assertThat(early.awaitAny(List.of("o1", "o2"), Duration.ofSeconds(30), Order::paid))
                    .isCompletedWithValue(new Order("o2", "PAID"));
        }
    }

    @Test
    void retainEvents_completeExceptionally_retainsNothing() {
        try (KeyedWaits<String, Order> early = retaining(Duration.ofSeconds(10), 100)) {
            early.completeExceptionally("o1", new IllegalStateException("x"));
            assertThat(early.retainedEvents()).isZero();
            assertThat(early.await("o1", Duration.ofSeconds(30))).isNotDone();
        }
    }

    private KeyedWaits<String, Order> retaining(Duration window, int maxEntries) {
        return KeyedWaits.builder("early").timer(timer).retainEvents(window, maxEntries).build();
    }

    private void assertNothingPending() {
        assertThat(waits.pending()).isZero();
        assertThat(waits.stats().watched()).isZero();
        assertThat(waits.stats().keys()).isZero();
        waits.engine().checkInvariants();
    }

    @Test
    void cancel_waitWithADependentStage_theDependentIsCancelledToo() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30));
        CompletableFuture<String> dependent = wait.thenApply(Order::status);
        wait.cancel(false);
        assertThatThrownBy(dependent::join).hasCauseInstanceOf(CancellationException.class);
    }

    @Test
    void completeExceptionally_afterClose_doesNothingAndReturnsZeroAsComplete() {
        CompletableFuture<Order> wait = waits.await("o1", Duration.ofSeconds(30));
        waits.close();
        assertThat(wait).isCompletedExceptionally();

        assertThat(waits.completeExceptionally("o1", new IllegalStateException("late"))).isZero();
        assertThat(waits.complete("o1", new Order("o1", "PAID"))).isZero();
        assertThat(waits.stats().callbackErrors()).isZero();
    }
}
