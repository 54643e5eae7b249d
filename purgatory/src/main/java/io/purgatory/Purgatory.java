package io.purgatory;

/**
 * What every purgatory has, whatever it holds: {@link DelayedOperationPurgatory},
 * {@link KeyedWaits} and {@link DelayedFuturePurgatory} implement it, so an integration (a
 * metrics binder, a health check, a shutdown hook) handles them all alike. Thread-safe.
 *
 * <p>{@link #close()} answers every pending operation by the purgatory's close policy and is
 * idempotent; afterwards new submissions throw {@link IllegalStateException}.
 */
public interface Purgatory extends AutoCloseable {

    /** The name given to the builder: it names the threads, the log lines and the meters' tag. */
    String name();

    /** A snapshot of the counters: pending, completed, expired, cancelled... O(1). */
    PurgatoryStats stats();

    /** True once {@link #close()} has been called, here or by a runtime it was built on. */
    boolean isClosed();

    /**
     * Binds the metrics with {@code factory}: it registers what it publishes and returns the
     * recorder of durations, which then times every operation watched from now on.
     *
     * @throws NullPointerException if {@code factory} is null
     * @throws IllegalStateException if metrics are already bound, or the purgatory is closed
     */
    void bindMetrics(MetricsRecorderFactory factory);

    /** Whether metrics are bound (and the purgatory not yet closed). */
    boolean hasMetrics();

    /**
     * Answers every pending operation by the close policy, stops what the purgatory owns and
     * removes its meters. Idempotent.
     */
    @Override
    void close();
}
