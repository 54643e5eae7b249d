package io.purgatory;

/** How a wait ended, as {@link WaitObserver#ended} reports it. */
public enum WaitOutcome {
    /** Completed after it was watched: by a check, an event, {@code forceComplete}. */
    COMPLETED,
    /** Completed by the try made when it was submitted, before it was watched: its event had come. */
    COMPLETED_AT_ONCE,
    /** Its timeout passed. */
    EXPIRED,
    /** Cancelled: {@code cancel}, {@code cancelForKey}, or its future completed or cancelled from outside. */
    CANCELLED,
    /** Settled by its purgatory's close, by the close policy. */
    CLOSED,
    /** Failed: a keyed wait's {@code completeExceptionally}, or a submission that threw. */
    FAILED
}
