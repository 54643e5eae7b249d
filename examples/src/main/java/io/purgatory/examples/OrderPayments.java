package io.purgatory.examples;

import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import io.purgatory.Purgatory;
import io.purgatory.PurgatoryStats;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Orders waiting for their payment events, keyed by order id, on {@link KeyedWaits}: a wait gets
 * the {@link Payment} itself, or fails with a {@link TimeoutException} when its timeout passes
 * first. A payment that arrives up to the early-payment window before its wait still answers it.
 * Thread-safe; a wait's future completes on the thread that settles it (see {@link KeyedWaits}).
 *
 * <pre>{@code
 * payments.awaitPayment("order-42", Duration.ofSeconds(20)).thenAccept(payment -> ...);
 * payments.onPayment(new Payment("order-42", 1_250, Instant.now()));   // from the payment stream
 * }</pre>
 */
public final class OrderPayments implements AutoCloseable {

    /** At most this many early payments are kept; beyond, the oldest goes first. */
    static final int MAX_EARLY_PAYMENTS = 100_000;

    /** A payment event: the order it pays, its amount in cents, and when it was paid. */
    public record Payment(String orderId, long amountCents, Instant paidAt) {
        public Payment {
            Objects.requireNonNull(orderId, "orderId");
            Objects.requireNonNull(paidAt, "paidAt");
            if (amountCents < 0) {
                throw new IllegalArgumentException("amountCents must be >= 0: " + amountCents);
            }
        }
    }

    private final KeyedWaits<String, Payment> waits;

    /**
     * Builds the waits from {@code waits} (its name, meters, a manual timer in tests...), keeping
     * each payment for {@code earlyPaymentWindow} so that a wait registered within it still gets it,
     * and counting a payment late when it comes within that window after its order's wait ended.
     */
    public OrderPayments(KeyedWaitsBuilder waits, Duration earlyPaymentWindow) {
        this.waits = waits.retainEvents(earlyPaymentWindow, MAX_EARLY_PAYMENTS)
                .lateEvents(earlyPaymentWindow, MAX_EARLY_PAYMENTS).build();
    }

    /** Waits up to {@code timeout} for the payment of {@code orderId}; else fails with a {@link TimeoutException}. */
    public CompletableFuture<Payment> awaitPayment(String orderId, Duration timeout) {
        return waits.await(Objects.requireNonNull(orderId, "orderId"), timeout);
    }

    /** Hands {@code payment} to the waits on its order, and keeps it for the early-payment window. */
    public int onPayment(Payment payment) {
        return waits.complete(payment.orderId(), payment);
    }

    /** The counters of the waits: pending, completed, expired... */
    public PurgatoryStats stats() {
        return waits.stats();
    }

    /** The waits as a {@link Purgatory}, for the demo's view of what is pending. */
    Purgatory purgatory() {
        return waits;
    }

    /** Payments kept now for waits still to come. */
    public int earlyPayments() {
        return waits.retainedEvents();
    }

    /** Answers every pending wait as its timeout would, and drops the early payments. Idempotent. */
    @Override
    public void close() {
        waits.close();
    }
}
