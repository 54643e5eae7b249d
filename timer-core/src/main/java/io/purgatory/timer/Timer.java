package io.purgatory.timer;

/**
 * A timer that runs each added {@link TimerTask} once its delay has passed.
 *
 * <p>Kafka's {@code org.apache.kafka.server.util.timer.Timer}, with the same four operations.
 * Implementations: {@link SystemTimer} on real time, {@link ManualTimer} on a {@link ManualClock}
 * for deterministic tests, and {@link SystemTimerReaper}, which drives a timer on its own thread.
 *
 * <p>The delay rule, the same for every timer: a task's delay counts from when it is added. A
 * delay of zero or less is due now: the task runs promptly. A delay above {@link #MAX_DELAY_MS}
 * (about 73 million years) saturates to it, so {@link Long#MAX_VALUE} means "never": the task
 * waits, costs nothing while it waits, and never runs unless cancelled or re-added.
 */
public interface Timer extends AutoCloseable {

    /** The largest delay honoured, in milliseconds: 2^61 ms; a larger one saturates to it (the delay rule). */
    long MAX_DELAY_MS = 1L << 61;

    /**
     * Schedules {@code task} to run {@link TimerTask#delayMs()} milliseconds from now, by the
     * delay rule above. Adding a task that is still scheduled reschedules it. A task belongs to
     * the first timer it is added to.
     *
     * @throws NullPointerException if {@code task} is null
     * @throws IllegalStateException if this timer is closed, or {@code task} belongs to another timer
     */
    void add(TimerTask task);

    /**
     * Runs the tasks that are due, waiting up to {@code timeoutMs} for the first of them to become
     * due. Returns true iff at least one bucket of tasks was processed.
     *
     * @throws IllegalArgumentException if {@code timeoutMs} is negative
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    boolean advanceClock(long timeoutMs) throws InterruptedException;

    /** Returns the number of scheduled tasks that have neither run nor been cancelled. */
    int size();

    /**
     * Stops the timer. Tasks still scheduled are cancelled: they never run. Idempotent.
     * After it, {@link #add} throws {@link IllegalStateException}. Called from a task running on
     * the thread that drives the timer, it leaves the cancelling to that thread, which finishes
     * it before its {@link #advanceClock} returns.
     */
    @Override
    void close();
}
