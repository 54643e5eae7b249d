package io.purgatory;

/**
 * Readings a facade adds to its purgatory's metrics: the events of {@link KeyedWaits}, those that
 * found no wait and, with early events on, those retained. Each read is O(1) and allocates nothing.
 */
interface EventReadings {

    /** Whether early events are retained: the three readings of retention are then live. */
    boolean retains();

    /** Early events retained now. */
    long retained();

    /** Waits answered at registration by a retained event. */
    long hits();

    /** Retained events dropped before their window ended, because too many were retained. */
    long evicted();

    /** Events that answered no wait and were not late (after their window, if retained). */
    long unanswered();

    /** Events that answered no wait, arriving after a wait on their key timed out or was cancelled. */
    long late();
}
