package io.purgatory;

import io.purgatory.timer.DaemonThreads;
import io.purgatory.timer.Timer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that advances a purgatory's timer (expired operations are handed to the timer's
 * executor) and, after each advance, calls the purge policy. A daemon named
 * {@code ExpirationReaper-<purgatory>}. It survives any exception (logged, brief back-off) but
 * stops if its timer is closed under it (an {@link IllegalStateException});
 * {@link #close()} stops it at once by interrupting its wait.
 */
final class ExpiredOperationReaper {

    /** The longest one wait for a due bucket lasts, in ms: the purge policy runs at least this often. */
    static final long WORK_TIMEOUT_MS = 200L;

    private static final Logger LOG = LoggerFactory.getLogger(ExpiredOperationReaper.class);
    private static final long WORK_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(WORK_TIMEOUT_MS);
    private static final long ERROR_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String purgatoryName;
    private final Timer timer;
    private final Runnable purgePolicy;
    private final Thread thread;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean closed;

    /** {@code timer} may be null (timer disabled): the reaper then only runs the purge policy. */
    ExpiredOperationReaper(String purgatoryName, Timer timer, Runnable purgePolicy) {
        this.purgatoryName = purgatoryName;
        this.timer = timer;
        this.purgePolicy = purgePolicy;
        this.thread = DaemonThreads.factory("ExpirationReaper-" + purgatoryName).newThread(this::run);
    }

    /** Starts the thread; idempotent. */
    void start() {
        if (!started.get() && started.compareAndSet(false, true)) { // read first: no write on every submit
            thread.start();
        }
    }

    /** Stops the thread and waits for it to end (unless called from it). Idempotent. */
    void close() {
        closed = true;
        if (!started.get() || Thread.currentThread() == thread) {
            return;
        }
        thread.interrupt();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    String threadName() {
        return thread.getName();
    }

    private void run() {
        while (!closed) {
            try {
                if (timer != null) {
                    timer.advanceClock(WORK_TIMEOUT_MS);
                } else {
                    LockSupport.parkNanos(this, WORK_TIMEOUT_NANOS);
                }
                purgePolicy.run();
            } catch (InterruptedException e) {
                // close() interrupts the wait; the loop condition decides
            } catch (IllegalStateException closedTimer) {
                if (!closed) {
                    LOG.warn("Expiration reaper of purgatory '{}': its timer was closed directly; the reaper"
                            + " stops, and operations now expire only when the purgatory closes", purgatoryName,
                            closedTimer);
                }
                break;
            } catch (Throwable error) {
                if (closed) {
                    break;
                }
                LOG.error("Expiration reaper of purgatory '{}' failed; carrying on", purgatoryName, error);
                LockSupport.parkNanos(this, ERROR_BACKOFF_NANOS);
            }
        }
    }
}
