package io.purgatory.internal;

/**
 * Which of the operations watching a key a visit reaches ({@link WatcherList#visit}): those
 * watching it plainly always; of those waiting at a position on it, the ones the visit's position
 * reaches.
 */
public enum Visit {
    /** Every operation on the key, whatever its position: a change that is not a move of the position. */
    ALL,
    /**
     * The plain ones, and the positioned ones the position reaches now for the first time; not
     * those an earlier positional visit reached (they wait for a visit of ALL): checkAndComplete
     * at a position.
     */
    NEWLY_REACHED,
    /** The plain ones, and every positioned one the position reaches, now or before: an event at a position. */
    REACHED
}
