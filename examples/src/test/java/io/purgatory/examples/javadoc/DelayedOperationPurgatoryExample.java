package io.purgatory.examples.javadoc;

import io.purgatory.DelayedOperationPurgatory;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** DelayedOperationPurgatory's example, verbatim (JavadocExamplesTest). */
final class DelayedOperationPurgatoryExample {

    private DelayedOperationPurgatoryExample() {
    }

    /** Runs the example; returns the purgatory, for the caller to close. */
    static DelayedOperationPurgatory<DelayedPayment> run(Orders orders, String orderId,
                                                         CompletableFuture<String> reply) {
        DelayedOperationPurgatory<DelayedPayment> payments = DelayedOperationPurgatory.builder("payments").build();

        // the request: answered at once if already paid, else when paid or after the operation's delay
        payments.tryCompleteElseWatch(new DelayedPayment(orders, orderId, reply), List.of(orderId));

        // the event, on any thread: tries the operations watching the key
        orders.markPaid(orderId);
        payments.checkAndComplete(orderId);
        return payments;
    }
}
