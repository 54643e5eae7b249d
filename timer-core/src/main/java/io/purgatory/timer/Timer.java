package io.purgatory.timer;

import java.time.Duration;

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
 *
 * <p>The duration rule, the same for every method of this library that takes a {@link Duration}
 * where another takes milliseconds: the duration is read by {@link #toMs(Duration)}, rounded up to
 * a whole millisecond (so a timeout of 1 ns is 1 ms, never "due now") and saturating (a duration
 * beyond {@link Long#MAX_VALUE} ms, such as {@code ChronoUnit.FOREVER.getDuration()}, is
 * {@code Long.MAX_VALUE} ms, which the delay rule reads as "never"). A null duration throws
 * {@link NullPointerException} naming the argument.
 */
public interface Timer extends AutoCloseable {

    /** The largest delay honoured, in milliseconds: 2^61 ms; a larger one saturates to it (the delay rule). */
    long MAX_DELAY_MS = 1L << 61;

    /**
     * Returns {@code duration} in whole milliseconds by the duration rule: rounded up (toward
     * positive infinity), and saturating at {@link Long#MAX_VALUE} and {@link Long#MIN_VALUE}
     * instead of throwing {@link ArithmeticException} as {@link Duration#toMillis()} does.
     *
     * @throws NullPointerException if {@code duration} is null
     */
    static long toMs(Duration duration) {
        return TimerConfig.toMs(duration, "duration");
    }

    /**
     * Schedules {@code task} to run {@link TimerEntry#delayMs()} milliseconds from now, by the
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

    /**
     * {@link #advanceClock(long)} with {@code timeout} read by the duration rule.
     *
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    default boolean advanceClock(Duration timeout) throws InterruptedException {
        return advanceClock(TimerConfig.checkTimeout(timeout));
    }

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
