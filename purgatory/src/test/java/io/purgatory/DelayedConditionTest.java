package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** DelayedCondition.await: a future of the outcome, with no subclass. */
class DelayedConditionTest {

    private final ManualTimer timer = new ManualTimer();
    private final ConcurrentLinkedQueue<Callback> failures = new ConcurrentLinkedQueue<>();
    private final DelayedOperationPurgatory<DelayedCondition> purgatory =
            DelayedOperationPurgatory.<DelayedCondition>builder("conditions").timer(timer).reaperEnabled(false)
                    .errorHandler((name, op, callback, error) -> failures.add(callback)).build();
    private final AtomicBoolean paid = new AtomicBoolean();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void await_conditionAlreadyTrue_returnsCompletedFuture() {
        paid.set(true);

        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("order-1"), 1_000, paid::get);

        assertThat(future).isCompletedWithValue(Outcome.COMPLETED);
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void await_conditionBecomesTrueThenKeyChecked_completesWithCompleted() {
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("order-1"), 1_000, paid::get);
        assertThat(purgatory.checkAndComplete("order-1")).isZero();
        assertThat(future).isNotDone();

        paid.set(true);
        assertThat(purgatory.checkAndComplete("order-1")).isEqualTo(1);

        assertThat(future).isCompletedWithValue(Outcome.COMPLETED);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void await_timeoutPasses_completesWithExpiredAtTheTimeoutNotBefore() {
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("order-1"), 1_000, paid::get);

        timer.advanceClock(999);
        assertThat(future).isNotDone();
        timer.advanceClock(1);

        assertThat(future).isCompletedWithValue(Outcome.EXPIRED);
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void await_cancelForKey_completesWithCancelled() {
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("order-1", "customer-9"), 1_000,
                paid::get);

        assertThat(purgatory.cancelForKey("customer-9")).hasSize(1);

        assertThat(future).isCompletedWithValue(Outcome.CANCELLED);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void await_purgatoryClosed_completesWithExpired() {
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("order-1"), 1_000, paid::get);

        purgatory.close();

        assertThat(future).isCompletedWithValue(Outcome.EXPIRED);
    }

    @Test
    void await_conditionThrows_countsAsNotYetAndIsReported() {
        AtomicBoolean broken = new AtomicBoolean(true);
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("k"), 1_000, () -> {
            if (broken.get()) {
                throw new IllegalStateException("condition failed");
            }
            return true;
        });
        assertThat(future).isNotDone();
        assertThat(failures).containsExactly(Callback.TRY_COMPLETE, Callback.TRY_COMPLETE);

        broken.set(false);
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);

        assertThat(future).isCompletedWithValue(Outcome.COMPLETED);
    }

    @Test
    void future_completedByTheCaller_doesNotAffectTheWait() {
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("k"), 1_000, paid::get);

        future.complete(Outcome.COMPLETED);

        assertThat(purgatory.numDelayed()).isEqualTo(1);
        timer.advanceClock(1_000);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.stats().expired()).isEqualTo(1);
    }

    @Test
    void await_purgatoryOfASupertype_isAccepted() {
        try (DelayedOperationPurgatory<DelayedOperation> general =
                DelayedOperationPurgatory.<DelayedOperation>builder("general")
                .timer(timer).reaperEnabled(false).build()) {
            paid.set(true);

            assertThat(DelayedCondition.await(general, List.of("k"), 10, paid::get))
                    .isCompletedWithValue(Outcome.COMPLETED);
        }
    }

    @Test
    void await_badArguments_throwNamingThem() {
        assertThatThrownBy(() -> DelayedCondition.await(null, List.of("k"), 10, paid::get))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("purgatory");
        assertThatThrownBy(() -> DelayedCondition.await(purgatory, List.of("k"), 10, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("condition");
        assertThat(purgatory.numDelayed()).isZero();
    }
}
