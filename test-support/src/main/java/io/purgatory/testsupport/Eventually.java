package io.purgatory.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread (a server's, a feed's, a broker) brings about. The
 * bound is a failure condition only, never a measure: a test never asserts how long it took.
 */
public final class Eventually {

    /** The default bound: long enough for a loaded CI machine, short enough for a hang to fail. */
    public static final Duration BOUND = Duration.ofSeconds(60);

    private Eventually() {
    }

    /**
     * Returns once {@code condition} holds.
     *
     * @throws AssertionError naming {@code what} if it does not within {@link #BOUND}
     */
    public static void await(String what, BooleanSupplier condition) {
        await(what, BOUND, condition);
    }

    /**
     * Returns once {@code condition} holds.
     *
     * @throws AssertionError naming {@code what} if it does not within {@code bound}
     */
    public static void await(String what, Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + bound + " waiting for: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
