package io.purgatory.timer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A deterministic {@link Timer} on a {@link ManualClock}, with no thread of its own: time moves
 * only when the caller advances it, and every task that is due runs on the caller's thread before
 * the call returns. For tests of code that uses timeouts.
 *
 * <pre>{@code
 * ManualTimer timer = new ManualTimer();
 * AtomicBoolean ran = new AtomicBoolean();
 * timer.add(new TimerTask(Duration.ofSeconds(30)) {
 *     @Override
 *     public void run() {
 *         ran.set(true);
 *     }
 * });
 *
 * timer.advanceClock(Duration.ofSeconds(29));
 * assertFalse(ran.get());                  // not due yet: nothing ran
 * timer.advanceClock(Duration.ofSeconds(1));
 * assertTrue(ran.get());                   // due: it ran on this thread, before advanceClock returned
 * }</pre>
 *
 * <p>It is the same timing wheel as {@link SystemTimer}, not a model of it. A task added with a
 * delay of zero or less runs inside {@link #add}. {@link #advanceClock(long)} moves the clock
 * forward by its argument, then runs what is due in deadline order. A task that throws goes to
 * the {@link TaskErrorHandler} (default: logged) and the rest still run. Thread-safe: tasks may be
 * added and cancelled from any thread; one thread at a time advances.
 */
public final class ManualTimer implements Timer {

    /** How often {@link #awaitScheduled} looks at the size. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualClock clock;
    private final TimerEngine engine;
    private final TaskRunner runner;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A timer with a new clock reading zero, a 1 ms tick and 20 buckets per wheel. */
    public ManualTimer() {
        this(new ManualClock());
    }

    /** A timer on {@code clock}, with a 1 ms tick and 20 buckets per wheel. */
    public ManualTimer(ManualClock clock) {
        this(clock, TimerSettings.KAFKA, TaskErrorHandler.logging());
    }

    /**
     * A timer on {@code clock} with the given wheel geometry and error handler.
     *
     * @throws IllegalArgumentException if {@code tickMs} or {@code wheelSize} is out of the bounds of
     *     {@link TimerSettings}
     */
    public ManualTimer(ManualClock clock, long tickMs, int wheelSize, TaskErrorHandler errorHandler) {
        this(clock, TimerSettings.KAFKA.withTickMs(tickMs).withWheelSize(wheelSize), errorHandler);
    }

    /**
     * A timer on {@code clock} with the given tick and wheel size and error handler.
     *
     * @throws IllegalArgumentException if {@code settings} has back-pressure: the test that
     *     advances a manual timer is what it would hold back
     */
    public ManualTimer(ManualClock clock, TimerSettings settings, TaskErrorHandler errorHandler) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (Objects.requireNonNull(settings, "settings").hasBackPressure()) {
            throw new IllegalArgumentException("backPressure does not apply to a ManualTimer (the caller advances it):"
                    + " " + settings.backPressure());
        }
        this.runner = new TaskRunner(errorHandler);
        this.engine = new TimerEngine("manual", settings, clock, runner::run,
                false);
    }

    @Override
    public void add(TimerTask task) {
        engine.schedule(Objects.requireNonNull(task, "task"));
    }

    /**
     * Moves the clock forward by {@code timeoutMs}, then runs every task that is due. Returns true
     * iff at least one bucket of tasks was processed. Called from inside a task, it only moves
     * the clock; the outer call runs what became due. The clock stops at the end of the range a
     * nanosecond clock can measure, 2^63 - 1 ns (about 292 years) after this timer was created:
     * a larger total advance saturates there instead of wrapping.
     */
    @Override
    public boolean advanceClock(long timeoutMs) {
        TimerConfig.checkTimeoutMs(timeoutMs);
        if (engine.isClosed()) {
            throw new IllegalStateException("timer is closed");
        }
        long leftNanos = Long.MAX_VALUE - Math.max(0L, engine.nowNanos());
        clock.advance(Math.min(TimeUnit.MILLISECONDS.toNanos(timeoutMs), leftNanos), TimeUnit.NANOSECONDS);
        return engine.runDue();
    }

    /**
     * {@link #advanceClock(long)} by {@code timeout} read by the duration rule of {@link Timer}:
     * rounded up to whole ms, so the clock moves by exactly what an operation of that timeout
     * waits.
     *
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    @Override
    public boolean advanceClock(Duration timeout) {
        return advanceClock(TimerConfig.checkTimeout(timeout));
    }

    /**
     * Waits, at most {@code timeout} of real time, until at least {@code count} tasks are scheduled
     * on this timer (added, and neither run nor cancelled): for a test whose code under test adds
     * them on another thread, such as a server's thread registering a wait. The timer's clock does
     * not move meanwhile. Returns true iff they are; false if the timeout passed first.
     *
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code count} or {@code timeout} is negative
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    public boolean awaitScheduled(int count, Duration timeout) throws InterruptedException {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0: " + count);
        }
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(TimerConfig.checkTimeout(timeout));
        long start = System.nanoTime();
        while (size() < count) {
            if (System.nanoTime() - start >= timeoutNanos) {
                return false;
            }
            LockSupport.parkNanos(this, POLL_NANOS);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for " + count + " scheduled tasks");
            }
        }
        return true;
    }

    /** The clock this timer runs on. */
    public ManualClock clock() {
        return clock;
    }

    @Override
    public int size() {
        return engine.size();
    }

    /** The number of task runs that threw. */
    public long failedTaskCount() {
        return runner.failures();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        engine.close();
    }

    /** Checks the wheel's invariants; call with no concurrent add or cancel. */
    long checkInvariants() {
        return engine.checkInvariants();
    }

    TimerEngine engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "ManualTimer[" + clock + ", size=" + size() + "]";
    }
}
