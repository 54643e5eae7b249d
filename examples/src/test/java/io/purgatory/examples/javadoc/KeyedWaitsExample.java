package io.purgatory.examples.javadoc;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** KeyedWaits' example, verbatim (JavadocExamplesTest). */
final class KeyedWaitsExample {

    record OrderId(String value) {
    }

    record Payment(String orderId, long cents) {
    }

    private KeyedWaitsExample() {
    }

    /** Runs the example, then closes the waits; returns the long poll's future. */
    static CompletableFuture<Payment> run(OrderId orderId, Payment payment) {
        KeyedWaits<OrderId, Payment> payments = KeyedWaits.builder("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000)   // an event just before its wait still answers it
                .build();

        // the long poll:
        CompletableFuture<Payment> paid = payments.await(orderId, Duration.ofSeconds(20));
        // the webhook, on any thread:
        payments.complete(orderId, payment);
        payments.close();
        return paid;
    }
}
