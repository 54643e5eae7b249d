package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a {@link Timer} on a thread of its own, for users who want a timer without a purgatory
 * (Kafka's {@code SystemTimerReaper}). Other calls delegate to the wrapped timer. Thread-safe.
 *
 * <p>{@link #start} creates the reaper and starts its daemon thread, named after it: a reaper is
 * never idle. The thread survives anything the timer or the after-advance action throws (logged;
 * it backs off briefly after a failure of the timer), and stops if the timer is closed under it.
 * {@link #close()} stops the thread at once, without waiting out an idle poll, then closes the
 * wrapped timer exactly once.
 */
public final class SystemTimerReaper implements Timer {

    /** The longest the reaper waits in one {@link Timer#advanceClock} call, in ms. */
    public static final long WORK_TIMEOUT_MS = 200L;

    private static final Logger LOG = LoggerFactory.getLogger(SystemTimerReaper.class);
    private static final long ERROR_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String name;
    private final Timer timer;
    private final Runnable afterEachAdvance;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SystemTimerReaper(String name, Timer timer, Runnable afterEachAdvance) {
        this.name = TimerConfig.checkName(name);
        this.timer = Objects.requireNonNull(timer, "timer");
        this.afterEachAdvance = Objects.requireNonNull(afterEachAdvance, "afterEachAdvance");
        this.thread = DaemonThreads.factory(name).newThread(this::reap);
    }

    /**
     * Starts a reaper thread named {@code name} that drives {@code timer}.
     *
     * @throws NullPointerException if {@code name} or {@code timer} is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public static SystemTimerReaper start(String name, Timer timer) {
        return start(name, timer, SystemTimerReaper::nothing);
    }

    private static void nothing() {
    }

    /**
     * Starts a reaper thread named {@code name} that drives {@code timer} and runs
     * {@code afterEachAdvance} after every {@link Timer#advanceClock} call, whatever it returned or
     * threw (a purgatory's purge policy, for instance). Anything that action throws is logged; it
     * never stops the thread.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public static SystemTimerReaper start(String name, Timer timer, Runnable afterEachAdvance) {
        SystemTimerReaper reaper = new SystemTimerReaper(name, timer, afterEachAdvance);
        reaper.thread.start();
        return reaper;
    }

    @Override
    public void add(TimerTask task) {
        timer.add(task);
    }

    @Override
    public boolean advanceClock(long timeoutMs) throws InterruptedException {
        return timer.advanceClock(timeoutMs);
    }

    @Override
    public int size() {
        return timer.size();
    }

    /** Stops the thread (waiting for it unless called from it), then closes the timer. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        thread.interrupt();
        if (Thread.currentThread() != thread) {
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
        timer.close();
    }

    /** True while the reaper thread runs (tests). */
    boolean isAlive() {
        return thread.isAlive();
    }

    private void reap() {
        while (!closed.get()) {
            try {
                timer.advanceClock(WORK_TIMEOUT_MS);
            } catch (InterruptedException e) {
                // close() interrupts us; the loop condition decides
            } catch (IllegalStateException closedTimer) {
                if (!closed.get()) {
                    LOG.warn("Reaper '{}': its timer was closed directly; the reaper stops", name, closedTimer);
                }
                break;
            } catch (Throwable error) {
                if (closed.get()) {
                    break;
                }
                LOG.error("Reaper '{}' failed to advance its timer; retrying", name, error);
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
                LOG.error("Reaper '{}': the action after an advance failed; the reaper carries on", name, error);
            } catch (Throwable ignored) {
                // nothing left to tell: the thread carries on
            }
        }
    }
}
