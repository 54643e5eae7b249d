package io.purgatory.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule every close follows, a runtime's and each purgatory's: the first call does the
 * work; a later call waits for it to finish, unless it runs in code the library called (a
 * callback, a try, a handler): that thread may be one the first call waits for, so it returns at
 * once; nor does a later call on the thread that made the first, which is then either below it on
 * the stack or was cut short there (a StackOverflowError). Every wait a close makes is bounded by
 * {@link #WAIT_NANOS} from the start of the outermost close on its thread (a runtime's close and
 * the closes of its purgatories share one bound), and happens only on a thread that is not in code
 * the library called. Thread-safe.
 */
final class CloseOnce {

    /** The longest a close waits for work on other threads. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final Logger LOG = LoggerFactory.getLogger(CloseOnce.class);
    private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final String what;
    private final AtomicBoolean begun = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    /** The thread of the first call, set by it. */
    private volatile Thread first;

    /** The close of {@code what} (for the log: "purgatory 'x'", "runtime 'y'"). */
    CloseOnce(String what) {
        this.what = what;
    }

    /** True once a close began. */
    boolean isBegun() {
        return begun.get();
    }

    /** Marks the close begun: true for the first call, which then does the work and calls {@link #done()}. */
    boolean mark() {
        if (begun.compareAndSet(false, true)) {
            first = Thread.currentThread();
            return true;
        }
        return false;
    }

    /**
     * Runs {@code close} as a close on this thread: the closes it makes, nested, wait at most until
     * WAIT_NANOS after the outermost one began.
     */
    static void bounded(Runnable close) {
        InProgress progress = InProgress.current();
        long now = System.nanoTime(); // before the depth changes: nothing between it and the try may throw
        if (progress.closeDepth++ == 0) {
            progress.closeStartNanos = now;
        }
        try {
            close.run();
        } finally {
            progress.closeDepth--;
        }
    }

    /** When the outermost close on this thread began: the start of every bound it waits by. */
    static long startNanos() {
        InProgress progress = InProgress.current();
        return progress.closeDepth > 0 ? progress.closeStartNanos : System.nanoTime();
    }

    /** Nanoseconds left of the bound of the close on this thread that began at {@code startNanos}, at least 0. */
    static long leftNanos(long startNanos) {
        return Math.max(0L, WAIT_NANOS - (System.nanoTime() - startNanos));
    }

    /** For a close that was not the first: waits for the first to be done, if this thread may. */
    void awaitFirst() {
        if (mayWait() && first != Thread.currentThread()) {
            try {
                if (!done.await(leftNanos(startNanos()), TimeUnit.NANOSECONDS)) {
                    LOG.warn("Closing {}: waited {} s for a close on another thread and returns", what, seconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The first close is done (or stopped part way). */
    void done() {
        done.countDown();
    }

    /**
     * Waits until {@code finished} says so, at most WAIT_NANOS from {@code startNanos}, if this
     * thread may wait; returns false if it gave up (logged) or may not wait.
     */
    boolean await(BooleanSupplier finished, long startNanos) {
        if (!mayWait()) {
            return false;
        }
        if (!finished.getAsBoolean() && leftNanos(startNanos) == 0) {
            LOG.warn("Closing {}: callbacks still run on other threads; the close's bound of {} s is spent, so it"
                    + " returns; they finish there", what, seconds());
            return false;
        }
        while (!finished.getAsBoolean()) {
            if (System.nanoTime() - startNanos >= WAIT_NANOS) {
                LOG.warn("Closing {}: waited {} s for callbacks running on other threads and returns; they finish"
                        + " there", what, seconds());
                return false;
            }
            LockSupport.parkNanos(this, PAUSE_NANOS);
        }
        return true;
    }

    /** Whether this thread may wait for another: not while it runs code the library called. */
    static boolean mayWait() {
        return !UserCode.isRunning();
    }

    private static long seconds() {
        return TimeUnit.NANOSECONDS.toSeconds(WAIT_NANOS);
    }
}
