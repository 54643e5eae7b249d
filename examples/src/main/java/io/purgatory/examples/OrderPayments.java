package io.purgatory.examples;

import io.purgatory.DelayedCondition;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.Outcome;
import io.purgatory.PurgatoryBuilder;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Completion from a business event, without writing a subclass: an order waits, keyed by its id,
 * until its payment event arrives or its timeout passes.
 *
 * <pre>{@code
 * payments.awaitPayment("order-42", 30_000).thenAccept(outcome -> ...); // COMPLETED or EXPIRED
 * payments.onPaymentEvent("order-42");                                   // from the payment stream
 * }</pre>
 */
public final class OrderPayments implements AutoCloseable {

    private final DelayedOperationPurgatory<DelayedCondition> waits;
    private final Set<String> paid = ConcurrentHashMap.newKeySet();

    public OrderPayments(PurgatoryBuilder<? super DelayedCondition> purgatory) {
        this.waits = purgatory.build();
    }

    /** Waits up to {@code timeoutMs} for the payment of {@code orderId}. */
    public CompletableFuture<Outcome> awaitPayment(String orderId, long timeoutMs) {
        Objects.requireNonNull(orderId, "orderId");
        return DelayedCondition.await(waits, List.of(orderId), timeoutMs, () -> paid.contains(orderId));
    }

    /** Records the payment of {@code orderId} and completes its wait, if any. */
    public void onPaymentEvent(String orderId) {
        paid.add(orderId);
        waits.checkAndComplete(orderId);
    }

    /** Forgets a settled order (the demo's bookkeeping, so the set does not grow forever). */
    public void forget(String orderId) {
        paid.remove(orderId);
    }

    public DelayedOperationPurgatory<DelayedCondition> purgatory() {
        return waits;
    }

    @Override
    public void close() {
        waits.close();
    }
}
