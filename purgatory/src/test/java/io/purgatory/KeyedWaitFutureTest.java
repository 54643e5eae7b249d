package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A keyed wait's future and its key, as a caller holds and uses them: every way to complete the
 * future from outside ends the wait; a wait answered at once is done when {@code await} returns,
 * even inside another wait's callback; a key is one key whatever its type.
 */
class KeyedWaitFutureTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private <K, V> KeyedWaits<K, V> waits(String name) {
        KeyedWaits<K, V> waits = KeyedWaits.builder(name).timer(timer).retainEvents(Duration.ofSeconds(10), 100)
                .build();
        toClose.add(waits);
        return waits;
    }

    @Test
    void completeAsync_fromOutside_endsTheWaitAndALaterEventAnswersNothing() {
        KeyedWaits<String, String> waits = waits("async");
        CompletableFuture<String> future = waits.await("k", Duration.ofSeconds(10));
        Executor direct = Runnable::run;

        future.completeAsync(() -> "from outside", direct);

        assertThat(future).isCompletedWithValue("from outside");
        assertThat(waits.pending()).as("the wait ended with its future: no slot, nothing watched").isZero();
        assertThat(waits.stats().cancelled()).isEqualTo(1);
        assertThat(waits.complete("k", "late")).as("a later event answers no wait").isZero();
        assertThat(future).isCompletedWithValue("from outside");
    }

    @Test
    void completeAsync_supplierThrows_failsTheFutureAndEndsTheWait() {
        KeyedWaits<String, String> waits = waits("async-fails");
        CompletableFuture<String> future = waits.await("k", Duration.ofSeconds(10));

        future.completeAsync(() -> {
            throw new IllegalStateException("no value");
        }, Runnable::run);

        assertThat(future).isCompletedExceptionally();
        assertThat(waits.pending()).isZero();
    }

    @Test
    void await_insideAnotherWaitsCallback_answeredAtOnceByARetainedEvent_isDoneWhenAwaitReturns() {
        KeyedWaits<String, String> waits = waits("nested");
        waits.complete("early", "retained");
        CompletableFuture<String> outer = waits.await("outer", Duration.ofSeconds(10));
        AtomicReference<Boolean> doneInside = new AtomicReference<>();
        AtomicReference<String> joinedInside = new AtomicReference<>();
        CompletableFuture<Void> stage = outer.thenAccept(v -> { // runs in the outer wait's callback
            CompletableFuture<String> inner = waits.await("early", Duration.ofSeconds(10));
            doneInside.set(inner.isDone());
            if (inner.isDone()) {
                joinedInside.set(inner.join()); // would block for ever if it were not done
            }
        });

        waits.complete("outer", "v");

        assertThat(stage).isDone();
        assertThat(doneInside.get()).as("the early event's wait is done when await returns").isTrue();
        assertThat(joinedInside.get()).isEqualTo("retained");
    }

    @Test
    void await_anArrayKey_isOneKeyToAwaitAndToComplete() {
        KeyedWaits<Object, String> waits = waits("array-key");
        Object[] key = {"a", "b"};
        CompletableFuture<String> future = waits.await(key, Duration.ofSeconds(10));

        assertThat(waits.complete("a", "not this key")).isZero();
        assertThat(waits.complete(key, "v")).as("the same array is the same key").isEqualTo(1);

        assertThat(future).isCompletedWithValue("v");
    }

    @Test
    void onAny_severalKeys_isAnsweredByAnEventOnAnyOfThem() {
        KeyedWaits<String, String> waits = waits("any");
        CompletableFuture<String> future = waits.onAny(List.of("a", "b")).await(Duration.ofSeconds(10));

        assertThat(waits.complete("b", "v")).isEqualTo(1);

        assertThat(future).isCompletedWithValue("v");
        assertThat(waits.stats().watched()).isZero();
    }

    @Test
    void waitFuture_completedByCompleteOnTimeoutOrTimeoutADependentStageOrCompleteAsync_endsEachWait()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        try (KeyedWaits<String, String> waits = KeyedWaits.builder("outside-ways").timer(timer).build()) {
            CompletableFuture<String> onTimeout = waits.await("a", Duration.ofSeconds(10));
            CompletableFuture<String> orTimeout = waits.await("b", Duration.ofSeconds(10));
            CompletableFuture<String> fromStage = waits.await("c", Duration.ofSeconds(10));
            CompletableFuture<String> async = waits.await("d", Duration.ofSeconds(10));
            CompletableFuture<String> copied = waits.await("e", Duration.ofSeconds(10));
            CompletableFuture<String> source = new CompletableFuture<>();

            onTimeout.completeOnTimeout("fallback", 1, TimeUnit.MILLISECONDS); // on the JDK's delayer thread
            orTimeout.orTimeout(1, TimeUnit.MILLISECONDS);
            CompletableFuture<Void> relay = source.thenAcceptAsync(fromStage::complete); // a dependent, elsewhere
            source.complete("relayed");
            async.completeAsync(() -> "supplied");
            copied.copy().complete("a copy is not the wait");
            relay.get(30, TimeUnit.SECONDS);
            for (CompletableFuture<String> f : List.of(onTimeout, orTimeout, async)) {
                f.handle((v, e) -> v).get(30, TimeUnit.SECONDS);
            }

            assertThat(onTimeout).isCompletedWithValue("fallback");
            assertThat(orTimeout).isCompletedExceptionally();
            assertThat(fromStage).isCompletedWithValue("relayed");
            assertThat(async).isCompletedWithValue("supplied");
            assertThat(copied).isNotDone();
            assertThat(waits.pending()).as("only the wait whose copy was completed is pending").isEqualTo(1);
            assertThat(waits.stats().cancelled()).as("the four ended from outside, counted cancelled").isEqualTo(4);
            assertThat(waits.complete("a", "late")).as("an event after the wait ended answers nothing").isZero();
            assertThatCode(() -> waits.engine().checkInvariants()).doesNotThrowAnyException();
        }
    }
}
