package io.purgatory.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule every close follows, a runtime's and each purgatory's: the first call does the
 * work; a later call waits for it to finish, unless it runs in code the library called (a
 * callback, a try, a handler): that thread may be one the first call waits for, so it does not
 * wait; nor does a later call on the thread that made the first, which is then either below it on
 * the stack or was cut short there (a StackOverflowError). A later call then does the work again
 * (it is idempotent) unless a close already did all of it on a thread that waited: a first close
 * cut short, or one that could not wait, is finished by the next, which waits as the first would
 * have, if it may. Every wait a close makes is bounded by {@link #WAIT_NANOS} from the start of
 * the outermost close on its thread (a runtime's close and the closes of its purgatories share one
 * bound), and happens only on a thread that is not in code the library called. Thread-safe.
 */
final class CloseOnce {

    /** The longest a close waits for work on other threads. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final Logger LOG = LoggerFactory.getLogger(CloseOnce.class);
    private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final String what;
    /** Held by the mark and by whatever must not happen after it (a registration, a metrics binding). */
    private final ReentrantLock lock = new ReentrantLock();
    /** Set by the mark, under `lock`. */
    private volatile boolean begun;
    /** The thread of the first call, set by the mark. */
    private volatile Thread first;
    /** Set once the first call left its work, done or cut short. */
    private volatile boolean firstEnded;
    /** Set once a close did all the work and saw all it waits for finished: no later close does it again. */
    private volatile boolean waited;

    /** The close of {@code what} (for the log: "purgatory 'x'", "runtime 'y'"). */
    CloseOnce(String what) {
        this.what = what;
    }

    /** True once a close began. */
    boolean isBegun() {
        return begun;
    }

    /** Runs {@code change} unless a close began, holding off the mark meanwhile; false iff a close began. */
    boolean unlessBegun(Runnable change) {
        lock.lock();
        try {
            if (begun) {
                return false;
            }
            change.run();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code change} holding off the mark: a close begins before it or after it. */
    void withMarkHeld(Runnable change) {
        lock.lock();
        try {
            change.run();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes by the rule, within the bound of the outermost close on this thread: marks the close
     * begun, then runs {@code work} as the first call or a later one. {@code work} is idempotent; it
     * returns true iff it did all of it and saw everything it waits for finished (so it waited).
     */
    void close(BooleanSupplier work) {
        bounded(() -> {
            boolean isFirst = unlessBegun(() -> {
                first = Thread.currentThread();
                begun = true;
            });
            if (!isFirst && first != Thread.currentThread()) {
                await(() -> firstEnded, "the first close");
            }
            try {
                if (!waited && work.getAsBoolean()) {
                    waited = true;
                }
            } finally {
                if (isFirst) {
                    firstEnded = true;
                }
            }
        });
    }

    /**
     * Runs {@code close} as a close on this thread: the closes it makes, nested, wait at most until
     * WAIT_NANOS after the outermost one began.
     */
    private static void bounded(Runnable close) {
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

    /**
     * Nanoseconds left of the bound of the close running on this thread (bounded), at least 0; 0 if
     * this thread may not wait: it runs code the library called.
     */
    static long leftNanos() {
        long start = InProgress.current().closeStartNanos;
        return UserCode.isRunning() ? 0L : Math.max(0L, WAIT_NANOS - (System.nanoTime() - start));
    }

    /**
     * Waits until {@code finished} says so, within the bound (leftNanos), if this thread may wait;
     * returns false if it gave up (logged: it waited for {@code waitedFor}) or may not wait.
     */
    boolean await(BooleanSupplier finished, String waitedFor) {
        if (UserCode.isRunning()) { // code the library called may not wait
            return false;
        }
        long deadline = System.nanoTime() + leftNanos();
        while (!finished.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                LOG.warn("Closing {}: the close's bound of {} s is spent while {} still runs on another thread;"
                        + " it returns, and that finishes there", what, TimeUnit.NANOSECONDS.toSeconds(WAIT_NANOS),
                        waitedFor);
                return false;
            }
            LockSupport.parkNanos(this, PAUSE_NANOS);
        }
        return true;
    }
}
