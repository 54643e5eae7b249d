package io.purgatory;

/**
 * Readings a facade adds to its purgatory's metrics: the early events of {@link KeyedWaits}.
 * Each read is O(1) and allocates nothing.
 */
interface EventReadings {

    /** Early events retained now. */
    long retained();

    /** Waits answered at registration by a retained event. */
    long hits();

    /** Retained events dropped before their window ended, because too many were retained. */
    long evicted();
}
