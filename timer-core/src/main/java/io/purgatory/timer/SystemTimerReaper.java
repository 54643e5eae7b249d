package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A timer together with the thread that drives it, for users who want a timer without a
 * purgatory (Kafka's {@code SystemTimerReaper}): a {@link Timer} whose calls go to the wrapped
 * timer, driven by a {@link TimerDriver}. Thread-safe.
 *
 * <p>{@link #start} starts the driver's daemon thread, named after the reaper: a reaper is never
 * idle. {@link #close()} stops the thread at once, without waiting out an idle poll, then closes
 * the wrapped timer exactly once.
 */
public final class SystemTimerReaper implements Timer {

    /** The longest the reaper waits in one {@link Timer#advanceClock} call, in ms. */
    public static final long WORK_TIMEOUT_MS = TimerDriver.WORK_TIMEOUT_MS;

    private final Timer timer;
    private final TimerDriver driver;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SystemTimerReaper(Timer timer, TimerDriver driver) {
        this.timer = timer;
        this.driver = driver;
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

    /**
     * Starts a reaper thread named {@code name} that drives {@code timer} and runs
     * {@code afterEachAdvance} after every {@link Timer#advanceClock} call (see
     * {@link TimerDriver#start}).
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public static SystemTimerReaper start(String name, Timer timer, Runnable afterEachAdvance) {
        Objects.requireNonNull(timer, "timer");
        return new SystemTimerReaper(timer, TimerDriver.start(name, timer, afterEachAdvance));
    }

    private static void nothing() {
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
        if (closed.compareAndSet(false, true)) {
            driver.close();
            timer.close();
        }
    }

    /** The timer it drives. */
    Timer timer() {
        return timer;
    }

    /** The driver of the timer (tests). */
    TimerDriver driver() {
        return driver;
    }

    /** True while the reaper thread runs (tests). */
    boolean isAlive() {
        return driver.isAlive();
    }
}
