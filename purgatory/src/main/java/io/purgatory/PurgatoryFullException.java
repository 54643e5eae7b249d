package io.purgatory;

/**
 * Thrown by {@link DelayedOperationPurgatory#tryCompleteElseWatch} when the purgatory already
 * holds its maximum of pending operations. The rejected operation was not touched: it was neither
 * tried nor watched, and may be submitted again later.
 */
public final class PurgatoryFullException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The limit that was reached. */
    private final int maxPending;

    /** The refusal of a submission to the purgatory named {@code purgatory}, full at {@code maxPending}. */
    public PurgatoryFullException(String purgatory, int maxPending) {
        super("purgatory '" + purgatory + "' is full: " + maxPending + " operations pending (maxPending="
                + maxPending + ")");
        this.maxPending = maxPending;
    }

    /** The limit that was reached. */
    public int maxPending() {
        return maxPending;
    }
}
