package io.purgatory;

/** The order of {@link Purgatory#listPending}: oldest first, or soonest due first. */
public enum PendingOrder {
    /** The operations watched longest ago first. */
    OLDEST_FIRST,
    /** The operations whose timeout comes first first; those with no timeout last. */
    SOONEST_DUE_FIRST
}
