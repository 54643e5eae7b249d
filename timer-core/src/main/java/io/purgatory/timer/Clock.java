package io.purgatory.timer;

/**
 * A source of monotonic time in nanoseconds, the one time base of this library.
 *
 * <p>Only differences between two readings are meaningful; a reading may be negative or near
 * {@link Long#MAX_VALUE}, and every comparison made on readings is by subtraction. The system
 * clock is {@link System#nanoTime()}; tests and simulations use a {@link ManualClock}.
 * Implementations must be thread-safe and never go backwards.
 */
@FunctionalInterface
public interface Clock {

    /** Returns the current reading, in nanoseconds. */
    long nanoTime();

    /** Returns the clock backed by {@link System#nanoTime()}. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}

/** The {@link System#nanoTime()} clock. */
enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
