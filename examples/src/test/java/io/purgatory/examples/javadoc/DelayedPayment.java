package io.purgatory.examples.javadoc;

import io.purgatory.DelayedOperation;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** DelayedOperation's example, verbatim (JavadocExamplesTest). */
final class DelayedPayment extends DelayedOperation {
    private final Orders orders;
    private final String orderId;
    private final CompletableFuture<String> reply;

    DelayedPayment(Orders orders, String orderId, CompletableFuture<String> reply) {
        super(Duration.ofSeconds(20));
        this.orders = orders;
        this.orderId = orderId;
        this.reply = reply;
    }

    @Override
    protected boolean tryComplete() {         // called again at each checkAndComplete(orderId)
        return orders.isPaid(orderId) && forceComplete();
    }

    @Override
    protected void onComplete() {             // exactly once: completed, or expired
        reply.complete(orders.isPaid(orderId) ? "paid" : "not paid yet");
    }

    @Override
    protected void onExpiration() {           // after onComplete, when the delay passed
    }
}
