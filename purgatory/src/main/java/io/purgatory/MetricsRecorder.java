package io.purgatory;

/**
 * Where one purgatory's durations go: the purgatory calls it as operations settle, once it has
 * been bound (see {@link MetricsRecorderFactory}). Counts and gauges are not pushed here: the
 * factory reads them from the {@link MetricsSource} when its registry asks.
 *
 * <p>Called on the thread that settles an operation, with no purgatory lock held, before the
 * operation's callbacks run: a recorder must be fast and should not throw. If it throws anyway
 * (an {@code Error} too), the failure is logged and the settle goes on unharmed.
 */
public interface MetricsRecorder {

    /**
     * A watched operation settled after {@code watchedNanos} nanoseconds on its lists. Operations
     * completed by their first try, never watched, are not reported here (see
     * {@link MetricsSource#completedAtOnce()}).
     */
    void recordSettled(Outcome outcome, long watchedNanos);

    /** A watched operation expired {@code latenessNanos} (at least 0) after its deadline. */
    void recordLateness(long latenessNanos);

    /**
     * The purgatory closed, after settling its last operation: remove whatever was registered.
     * Called once; no record call starts after it. One already under way on another thread (a
     * cancel or a completion from outside that raced the close) may still end after it: ignore it.
     */
    void close();
}
