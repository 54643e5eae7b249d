package io.purgatory;

/**
 * Watches each wait of a purgatory (an operation, a keyed wait) from its submission to its end,
 * for tracing: {@link #started} is called on the submitting thread before the wait's first try,
 * and {@link #ended} exactly once for each handle it returned, on the thread that ended the wait
 * (the caller of {@code checkAndComplete} or {@code complete}, an expiration thread, the closer).
 * Given to a builder ({@code observer(...)}); {@code purgatory-micrometer}'s
 * {@code MicrometerObservations} makes a Micrometer {@code Observation} of each wait. Without an
 * observer nothing is allocated and nothing is called.
 *
 * <p>Both methods are called like any user code: whatever they throw is logged and changes
 * nothing of the wait. They should be quick; they must not block.
 */
public interface WaitObserver {

    /**
     * A wait starts. Returns the handle {@link #ended} will get for it, or null to leave it
     * unobserved.
     */
    Object started(WaitStart start);

    /**
     * The wait of {@code handle} ended, with {@code outcome}; {@code failure} is what failed it
     * (a keyed wait's {@code completeExceptionally}, a submission that threw), else null.
     */
    void ended(Object handle, WaitOutcome outcome, Throwable failure);
}
