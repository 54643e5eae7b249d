package io.purgatory.examples.javadoc;

import io.purgatory.DelayedCondition;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** DelayedCondition's example, verbatim (JavadocExamplesTest). */
final class DelayedConditionExample {

    private DelayedConditionExample() {
    }

    /** Runs the example, then closes the purgatory; returns the wait's future. */
    static CompletableFuture<Outcome> run(Orders orders, String orderId) {
        DelayedOperationPurgatory<DelayedCondition> paidOrders = DelayedOperationPurgatory.builder("paid").build();

        // the request: COMPLETED once the order is paid, or EXPIRED after 30 s
        CompletableFuture<Outcome> paid = DelayedCondition.await(paidOrders, List.of(orderId), Duration.ofSeconds(30),
                () -> orders.isPaid(orderId));

        // the event, on any thread:
        orders.markPaid(orderId);
        paidOrders.checkAndComplete(orderId);
        paidOrders.close();
        return paid;
    }
}
