package io.purgatory;

import io.purgatory.internal.Operation;
import io.purgatory.internal.OperationState;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.Objects;

/**
 * An operation that waits in a {@link DelayedOperationPurgatory} until it can complete or its
 * delay passes. Kafka's {@code DelayedOperation}, with the same three callbacks.
 *
 * <pre>{@code
 * final class DelayedPayment extends DelayedOperation {
 *     private final Orders orders;
 *     private final String orderId;
 *     private final CompletableFuture<String> reply;
 *
 *     DelayedPayment(Orders orders, String orderId, CompletableFuture<String> reply) {
 *         super(Duration.ofSeconds(20));
 *         this.orders = orders;
 *         this.orderId = orderId;
 *         this.reply = reply;
 *     }
 *
 *     @Override
 *     protected boolean tryComplete() {         // called again at each checkAndComplete(orderId)
 *         return orders.isPaid(orderId) && forceComplete();
 *     }
 *
 *     @Override
 *     protected void onComplete() {             // exactly once: completed, or expired
 *         reply.complete(orders.isPaid(orderId) ? "paid" : "not paid yet");
 *     }
 *
 *     @Override
 *     protected void onExpiration() {           // after onComplete, when the delay passed
 *     }
 * }
 * }</pre>
 *
 * <p>A subclass implements {@link #tryComplete()} (check the condition; if it holds, call
 * {@link #forceComplete()} and return its result), {@link #onComplete()} (send the answer) and
 * {@link #onExpiration()} (timeouts only), and may override {@link #onCancel()}. The operation is
 * settled exactly once, by one of: completion ({@code onComplete}), expiry ({@code onComplete}
 * then {@code onExpiration}) or {@link #cancel()} ({@code onCancel}). When it is settled it leaves
 * every watch list and the timer at once, and keeps no reference to any other operation.
 *
 * <p>The delay follows the timer's rule: a delay of zero or less is due at once (the operation
 * expires as soon as it is watched, unless its first tries complete it), and a delay above
 * {@link io.purgatory.timer.Timer#MAX_DELAY_MS} is that maximum, so {@code Long.MAX_VALUE} never
 * expires in practice.
 *
 * <p>Thread-safety: the purgatory calls {@code tryComplete} on one thread at a time, never on an
 * operation already settled, and never while one of its callbacks runs. A settle that another
 * thread makes meanwhile (a {@link #cancel()}, the expiry, a close) does not wait for a
 * {@code tryComplete} that has begun: {@link #isCompleted()} may turn true while it runs, its
 * {@code forceComplete} then returns false, and the callbacks run once it has returned. A check
 * that finds a try of the operation running on another thread does not wait for it: it asks that
 * thread to try once more when its try returns, so no wake-up from another thread is lost and no
 * thread blocks on another's {@code tryComplete}. A check of the operation's own keys made from
 * inside its {@code tryComplete} (or a callback that runs there) asks for at most two more tries,
 * so a {@code tryComplete} that checks its own keys does not spin. Callbacks run with no library
 * lock held, on the thread that settled the operation, or, if a try of it was running then, on
 * that try's thread right after it returns. A settle inside another operation's callback on the
 * same thread runs its callbacks after that callback returns, so chains of completions of any
 * length run in bounded stack. Whatever a callback throws, an {@code Error} included, goes to the
 * purgatory's error handler and changes nothing else. Memory consistency effects: actions in a
 * {@code tryComplete} happen-before the operation's next {@code tryComplete} and its callbacks,
 * and actions in a thread prior to the call that settles an operation happen-before its
 * callbacks, so a subclass's own fields need no lock. The library never uses the operation's
 * monitor.
 */
// Operation is the engine's state, in a package the module does not export: nothing of it is
// visible to a subclass but the callbacks this class declares.
@SuppressWarnings("exports")
public abstract class DelayedOperation extends Operation {

    /*
     * Implementation notes.
     *
     * This class is the contract; the engine's state (the state word, the owner, where it
     * watches, its timer entry) lives in Operation's fields, which only the engine reaches, and
     * its life is OperationState's. No method a subclass can reach touches them.
     */

    private static final Outcome[] OUTCOMES = {null, Outcome.COMPLETED, Outcome.EXPIRED, Outcome.CANCELLED};

    /**
     * Creates an operation that expires {@code delayMs} milliseconds after it is watched. Any
     * value is accepted: zero or less is due at once, and a delay above
     * {@link io.purgatory.timer.Timer#MAX_DELAY_MS} is treated as that maximum.
     */
    protected DelayedOperation(long delayMs) {
        super(delayMs);
    }

    /**
     * Creates an operation that expires {@code delay} after it is watched, read by the duration
     * rule of {@link io.purgatory.timer.Timer}: rounded up to whole milliseconds (so 1 ns is 1 ms,
     * not "due at once") and saturating ({@code ChronoUnit.FOREVER.getDuration()} never expires).
     *
     * @throws NullPointerException if {@code delay} is null
     */
    protected DelayedOperation(Duration delay) {
        super(Timer.toMs(Objects.requireNonNull(delay, "delay")));
    }

    /**
     * Checks whether the operation can complete; if so, calls {@link #forceComplete()} and returns
     * its result. Called by the purgatory on one thread at a time, never on an operation already
     * settled (but another thread may settle it while this runs: see the class comment). An
     * exception (or error) counts as "not yet" and goes to the purgatory's error handler.
     */
    @Override
    protected abstract boolean tryComplete();

    /** Called exactly once when the operation is completed or expires; builds and sends the answer. */
    @Override
    protected abstract void onComplete();

    /** Called after {@link #onComplete()} when the operation expired. */
    @Override
    protected abstract void onExpiration();

    /** Called exactly once if the operation is cancelled, instead of the other callbacks. Does nothing by default. */
    @Override
    protected void onCancel() {
    }

    /**
     * Completes the operation unless it is already settled. Returns true iff this call completed
     * it. {@link #onComplete()} runs before this method returns, except: called from
     * {@link #tryComplete()}, it runs right after that {@code tryComplete} returns; while a try of
     * the operation runs on another thread, right after that try returns, on that thread; and
     * called from inside a callback, right after that callback returns.
     */
    public final boolean forceComplete() {
        return OperationState.settle(this, OperationState.COMPLETED);
    }

    /**
     * Cancels the operation unless it is already settled: it leaves its watch lists and the timer
     * and {@link #onCancel()} runs (when, as for {@link #forceComplete()}). Returns true iff this
     * call cancelled it.
     */
    public final boolean cancel() {
        return OperationState.settle(this, OperationState.CANCELLED);
    }

    /** Returns true once the operation is settled, whatever the outcome. */
    public final boolean isCompleted() {
        return OperationState.isSettled(this);
    }

    /** Returns true iff the operation was settled by cancellation. */
    public final boolean isCancelled() {
        return OperationState.outcome(this) == OperationState.CANCELLED;
    }

    /** Returns how the operation was settled, or null while it is pending. */
    public final Outcome outcome() {
        return OUTCOMES[OperationState.outcome(this)];
    }

    /**
     * The expiry, as Kafka's: expires the operation unless it is already settled. The timer calls
     * it when the delay has passed; calling it yourself does what the expiry would, once.
     */
    @Override
    public final void run() {
        OperationState.expire(this);
    }

    @Override
    public String toString() {
        return getClass().getName() + "[delayMs=" + delayMs() + ", " + outcome() + "]";
    }
}
