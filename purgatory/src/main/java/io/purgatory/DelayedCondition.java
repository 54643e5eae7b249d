package io.purgatory;

import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A wait without a subclass: completes when {@code condition} holds at a
 * {@link DelayedOperationPurgatory#checkAndComplete} of one of its keys, or expires after its
 * timeout; its {@link #future()} then completes with the {@link Outcome}.
 *
 * <pre>{@code
 * DelayedOperationPurgatory<DelayedCondition> paidOrders = DelayedOperationPurgatory.builder("paid").build();
 *
 * // the request: COMPLETED once the order is paid, or EXPIRED after 30 s
 * CompletableFuture<Outcome> paid = DelayedCondition.await(paidOrders, List.of(orderId), Duration.ofSeconds(30),
 *         () -> orders.isPaid(orderId));
 *
 * // the event, on any thread:
 * orders.markPaid(orderId);
 * paidOrders.checkAndComplete(orderId);
 * }</pre>
 *
 * <p>The future completes on the thread that settles the operation (a {@code checkAndComplete}
 * caller, an expiration thread, or {@code close()}); use the {@code *Async} stages to move work
 * elsewhere. The condition is called on one thread at a time, never on an operation already settled
 * (a cancel or expiry from another thread may still land while it runs),
 * with no library lock held; it must be quick and non-blocking;
 * if it throws, it counts as "not yet" and the error goes to the purgatory's error handler.
 */
public final class DelayedCondition extends DelayedOperation {

    private final BooleanSupplier condition;
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private final CompletableFuture<Outcome> view = outcome.copy();

    /**
     * A wait for {@code condition} of at most {@code timeoutMs}: zero or less expires as soon as
     * it is watched, and {@code Long.MAX_VALUE} never expires (the timer's delay rule).
     *
     * @throws NullPointerException if {@code condition} is null
     */
    public DelayedCondition(long timeoutMs, BooleanSupplier condition) {
        super(timeoutMs);
        this.condition = Objects.requireNonNull(condition, "condition");
    }

    /**
     * A wait for {@code condition} of at most {@code timeout}, read by the duration rule of
     * {@link Timer}: rounded up to whole ms (1 ns waits 1 ms) and saturating
     * ({@code ChronoUnit.FOREVER.getDuration()} never expires).
     *
     * @throws NullPointerException if {@code timeout} or {@code condition} is null
     */
    public DelayedCondition(Duration timeout, BooleanSupplier condition) {
        this(Timer.toMs(Objects.requireNonNull(timeout, "timeout")), condition);
    }

    /**
     * Submits a wait for {@code condition} on {@code keys} to {@code purgatory}; returns its future.
     * If the condition already holds, the returned future is already complete.
     */
    public static CompletableFuture<Outcome> await(DelayedOperationPurgatory<? super DelayedCondition> purgatory,
                                                   Collection<?> keys, long timeoutMs, BooleanSupplier condition) {
        Objects.requireNonNull(purgatory, "purgatory");
        DelayedCondition wait = new DelayedCondition(timeoutMs, condition);
        purgatory.tryCompleteElseWatch(wait, keys);
        if (wait.isCompleted()) { // done now, even inside a callback, where onComplete runs only after it returns
            wait.outcome.complete(wait.outcome());
        }
        return wait.future();
    }

    /**
     * {@link #await(DelayedOperationPurgatory, Collection, long, BooleanSupplier)} with a
     * {@code timeout} read by the duration rule of {@link Timer}.
     *
     * @throws NullPointerException if an argument is null
     */
    public static CompletableFuture<Outcome> await(DelayedOperationPurgatory<? super DelayedCondition> purgatory,
                                                   Collection<?> keys, Duration timeout, BooleanSupplier condition) {
        return await(purgatory, keys, Timer.toMs(Objects.requireNonNull(timeout, "timeout")), condition);
    }

    /**
     * The outcome, once settled: {@link Outcome#COMPLETED}, {@link Outcome#EXPIRED} or
     * {@link Outcome#CANCELLED}. Completing or cancelling this future does not affect the wait.
     */
    public CompletableFuture<Outcome> future() {
        return view;
    }

    @Override
    protected boolean tryComplete() {
        return condition.getAsBoolean() && forceComplete();
    }

    @Override
    protected void onComplete() {
        outcome.complete(outcome()); // COMPLETED, or EXPIRED (set before callbacks run)
    }

    @Override
    protected void onExpiration() {
        // the future was completed by onComplete
    }

    @Override
    protected void onCancel() {
        outcome.complete(Outcome.CANCELLED);
    }
}
