package io.purgatory;

/** How a {@link DelayedOperation} was settled. Each operation is settled exactly once. */
public enum Outcome {
    /**
     * Completed: by a successful {@link DelayedOperation#tryComplete()} or
     * {@link DelayedOperation#forceComplete()}.
     */
    COMPLETED,
    /** Its delay passed first: {@code onComplete} then {@code onExpiration} ran. */
    EXPIRED,
    /**
     * Cancelled by {@link DelayedOperation#cancel()} or {@link DelayedOperationPurgatory#cancelForKey}:
     * {@code onCancel} ran.
     */
    CANCELLED
}
