package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a {@link Timer} on a thread of its own, for users who want a timer without a purgatory
 * (Kafka's {@code SystemTimerReaper}). Other calls delegate to the wrapped timer.
 *
 * <p>Nothing runs until {@link #start()}. The thread is a daemon named after the reaper; it
 * survives anything the timer throws (logged; it backs off briefly after an unexpected error),
 * and stops if the timer is closed under it (an {@link IllegalStateException}).
 * {@link #close()} stops the thread at once, without waiting out an idle poll, then closes the
 * wrapped timer exactly once. Thread-safe.
 */
public final class SystemTimerReaper implements Timer {

    /** The longest the reaper waits in one {@link Timer#advanceClock} call, in ms. */
    public static final long WORK_TIMEOUT_MS = 200L;

    private static final Logger LOG = LoggerFactory.getLogger(SystemTimerReaper.class);
    private static final long ERROR_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String name;
    private final Timer timer;
    private final Thread thread;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Creates a reaper thread named {@code name} for {@code timer}; call {@link #start()}.
     *
     * @throws NullPointerException if {@code name} or {@code timer} is null
     */
    public SystemTimerReaper(String name, Timer timer) {
        this.name = TimerConfig.checkName(name);
        this.timer = Objects.requireNonNull(timer, "timer");
        this.thread = DaemonThreads.factory(name).newThread(this::reap);
    }

    /** Starts the reaper thread; idempotent. Returns this. */
    public SystemTimerReaper start() {
        if (closed.get()) {
            throw new IllegalStateException("reaper '" + name + "' is closed");
        }
        if (started.compareAndSet(false, true)) {
            thread.start();
        }
        return this;
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
        if (started.get()) {
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
            }
        }
    }
}
