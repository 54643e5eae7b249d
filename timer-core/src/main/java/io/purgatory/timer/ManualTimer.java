package io.purgatory.timer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A deterministic {@link Timer} on a {@link ManualClock}, with no thread of its own: time moves
 * only when the caller advances it, and every task that is due runs on the caller's thread before
 * the call returns. For tests of code that uses timeouts.
 *
 * <p>It is the same timing wheel as {@link SystemTimer}, not a model of it. A task added with a
 * delay of zero or less runs inside {@link #add}. {@link #advanceClock(long)} moves the clock
 * forward by its argument, then runs what is due in deadline order. A task that throws goes to
 * the {@link TaskErrorHandler} (default: logged) and the rest still run. Thread-safe: tasks may be
 * added and cancelled from any thread; one thread at a time advances.
 */
public final class ManualTimer implements Timer {

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
        this(clock, TimerGeometry.KAFKA, TaskErrorHandler.logging());
    }

    /**
     * A timer on {@code clock} with the given wheel geometry and error handler.
     *
     * @throws IllegalArgumentException if {@code tickMs} or {@code wheelSize} is out of the bounds of
     *     {@link TimerGeometry}
     */
    public ManualTimer(ManualClock clock, long tickMs, int wheelSize, TaskErrorHandler errorHandler) {
        this(clock, new TimerGeometry(tickMs, wheelSize), errorHandler);
    }

    /** A timer on {@code clock} with the given wheel geometry and error handler. */
    public ManualTimer(ManualClock clock, TimerGeometry geometry, TaskErrorHandler errorHandler) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.runner = new TaskRunner(errorHandler);
        this.engine = new TimerEngine("manual", Objects.requireNonNull(geometry, "geometry"), clock, runner::run,
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
