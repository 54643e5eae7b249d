package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon thread that drives a {@link Timer}: it calls {@link Timer#advanceClock} in a loop,
 * and an action of yours after each call. Its one job is the thread: {@link #close()} stops it
 * and leaves the timer as it is, open (close the timer yourself, or use {@link SystemTimerReaper},
 * which does both). Thread-safe.
 *
 * <p>The thread survives anything the timer or the action throws (logged; it backs off briefly
 * after a failure of the timer), and stops if the timer is closed under it.
 */
public final class TimerDriver implements AutoCloseable {

    /** The longest the driver waits in one {@link Timer#advanceClock} call, in ms. */
    public static final long WORK_TIMEOUT_MS = 200L;

    private static final Logger LOG = LoggerFactory.getLogger(TimerDriver.class);
    private static final long ERROR_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String name;
    private final Timer timer;
    private final Runnable afterEachAdvance;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TimerDriver(String name, Timer timer, Runnable afterEachAdvance) {
        this.name = TimerConfig.checkName(name);
        this.timer = Objects.requireNonNull(timer, "timer");
        this.afterEachAdvance = Objects.requireNonNull(afterEachAdvance, "afterEachAdvance");
        this.thread = DaemonThreads.factory(name).newThread(this::drive);
    }

    /**
     * Starts a daemon thread named {@code name} that drives {@code timer} and runs
     * {@code afterEachAdvance} after every {@link Timer#advanceClock} call, whatever it returned or
     * threw (a purgatory's purge policy, for instance).
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public static TimerDriver start(String name, Timer timer, Runnable afterEachAdvance) {
        TimerDriver driver = new TimerDriver(name, timer, afterEachAdvance);
        driver.thread.start();
        return driver;
    }

    /** The name of the thread. */
    public String name() {
        return name;
    }

    /** Stops the thread, waiting for it unless called from it; the timer stays open. Idempotent. */
    @Override
    public void close() {
        close(Long.MAX_VALUE);
    }

    /**
     * Stops the thread, waiting at most {@code timeoutMs} for it (0: not at all; never when called
     * from it); the timer stays open. Idempotent. Returns true iff the thread has stopped.
     */
    public boolean close(long timeoutMs) {
        if (closed.compareAndSet(false, true)) {
            thread.interrupt();
        }
        if (Thread.currentThread() == thread) {
            return false;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(timeoutMs,
                Long.MAX_VALUE / 2_000_000));
        boolean interrupted = false;
        try {
            for (long left = timeoutMs; thread.isAlive() && left > 0; ) {
                try {
                    thread.join(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return !thread.isAlive();
    }

    /** True iff the calling thread is this driver's thread. */
    public boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /** True while the thread runs (tests). */
    boolean isAlive() {
        return thread.isAlive();
    }

    private void drive() {
        while (!closed.get()) {
            try {
                timer.advanceClock(WORK_TIMEOUT_MS);
            } catch (InterruptedException e) {
                // close() interrupts us; the loop condition decides
            } catch (IllegalStateException closedTimer) {
                if (!closed.get()) {
                    LOG.warn("Timer driver '{}': its timer was closed directly; the driver stops", name, closedTimer);
                }
                break;
            } catch (Throwable error) {
                if (closed.get()) {
                    break;
                }
                LOG.error("Timer driver '{}' failed to advance its timer; retrying", name, error);
                LockSupport.parkNanos(this, ERROR_BACKOFF_NANOS);
            } finally {
                runAfterAdvance();
            }
        }
    }

    private void runAfterAdvance() {
        if (closed.get()) {
            return;
        }
        try {
            afterEachAdvance.run();
        } catch (Throwable error) {
            try {
                LOG.error("Timer driver '{}': the action after an advance failed; the driver carries on", name,
                        error);
            } catch (Throwable ignored) {
                // nothing left to tell: the thread carries on
            }
        }
    }
}
