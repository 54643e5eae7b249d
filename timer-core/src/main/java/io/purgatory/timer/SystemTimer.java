package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Timer} on real time: a hierarchical timing wheel whose clock jumps straight to the next
 * non-empty bucket, so an idle timer does no work. Add and cancel are lock-free and allocate
 * nothing; expiry is O(1) per task plus O(levels) per re-insertion from a coarser wheel.
 *
 * <p>The timer starts no thread of its own for driving: whoever calls {@link #advanceClock(long)}
 * drives it (one thread at a time), usually a {@link SystemTimerReaper} or a purgatory's reaper.
 * Due tasks run on the executor (default: one daemon thread named {@code <name>-executor},
 * created on first use); tasks due in the same tick are handed over in runs of up to 32, so a
 * slow task can delay the others of its run, never those of other runs or ticks. A task that throws goes to the {@link TaskErrorHandler} and is counted;
 * a task the executor rejects (or fails to take) runs on the driving thread instead, and is reported.
 *
 * <p>{@link #close()} cancels the tasks still scheduled (they never run), lets tasks already
 * handed to the executor finish, shuts the default executor down and returns without waiting.
 * No thread of this timer keeps the JVM alive.
 */
public final class SystemTimer implements Timer {

    /** Expired tasks handed to the executor in one runnable, at most. */
    static final int MAX_RUN = 32;

    private final TimerEngine engine;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final TaskErrorHandler errorHandler;
    private final LongAdder failedTasks = new LongAdder();
    private final Runnable countFailure = failedTasks::increment;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A timer with Kafka's defaults: 1 ms tick, 20 buckets per wheel, the system clock. */
    public SystemTimer(String name) {
        this(builder(name));
    }

    /** A timer with the given tick and wheel size, on the system clock. */
    public SystemTimer(String name, long tickMs, int wheelSize) {
        this(builder(name).tickMs(tickMs).wheelSize(wheelSize));
    }

    private SystemTimer(Builder b) {
        this.errorHandler = b.errorHandler;
        if (b.executor == null) {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(), DaemonThreads.factory(b.name + "-executor"));
            this.ownedExecutor = pool;
            this.executor = pool;
        } else {
            this.ownedExecutor = null;
            this.executor = b.executor;
        }
        this.engine = new TimerEngine(b.name, b.tickMs, b.wheelSize, b.clock, new Dispatcher() {
            @Override
            public void dispatch(TimerTask task) {
                SystemTimer.this.dispatch(task);
            }

            @Override
            public void dispatchAll(TimerTask[] tasks, int count) {
                SystemTimer.this.dispatchAll(tasks, count);
            }
        }, true);
    }

    /** Starts a builder for a timer named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    @Override
    public void add(TimerTask task) {
        engine.schedule(Objects.requireNonNull(task, "task"));
    }

    @Override
    public boolean advanceClock(long timeoutMs) throws InterruptedException {
        TimerConfig.checkTimeoutMs(timeoutMs);
        ReentrantLock lock = engine.driverLock;
        if (lock.isHeldByCurrentThread()) {
            return false; // called from a task running on the driving thread: the outer call carries on
        }
        if (engine.isClosed()) {
            throw new IllegalStateException("timer '" + engine.name() + "' is closed");
        }
        lock.lockInterruptibly();
        try {
            long timeoutNanos = TimingWheel.saturatedMultiply(timeoutMs, TimeUnit.MILLISECONDS.toNanos(1));
            long start = engine.nowNanos();
            for (;;) {
                if (engine.isClosed()) {
                    return false;
                }
                if (engine.expireDue()) {
                    return true;
                }
                if (engine.cascadeAhead()) {
                    continue; // one bounded step; due work first
                }
                long remaining = timeoutNanos - (engine.nowNanos() - start);
                if (remaining <= 0) {
                    return false;
                }
                engine.parkDriver(Math.min(remaining, engine.nanosUntilNextWork()));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while advancing timer '" + engine.name() + "'");
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int size() {
        return engine.size();
    }

    /** The name this timer was built with. */
    public String name() {
        return engine.name();
    }

    /** The number of task runs that threw, and of tasks the executor rejected. */
    public long failedTaskCount() {
        return failedTasks.sum();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        engine.close();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    /** True once the default executor has finished every task handed to it (tests). */
    boolean isTerminated() {
        return ownedExecutor == null || ownedExecutor.isTerminated();
    }

    long checkInvariants() {
        return engine.checkInvariants();
    }

    TimerEngine engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "SystemTimer[" + engine.name() + ", size=" + size() + "]";
    }

    private void dispatch(TimerTask task) {
        try {
            executor.execute(() -> runTask(task));
        } catch (RuntimeException rejected) { // RejectedExecutionException, or any failure of a user's executor
            runRejected(task, rejected);
        }
    }

    /**
     * Hands tasks due together to the executor in runs of at most MAX_RUN, in order, split evenly
     * (TimerEngine E8): a thousand expirations due in the same millisecond cost a few dozen
     * hand-offs instead of a thousand, while a pool of several threads still shares them.
     */
    private void dispatchAll(TimerTask[] tasks, int count) {
        int runs = (count + MAX_RUN - 1) / MAX_RUN;
        int runLength = (count + runs - 1) / runs;
        for (int from = 0; from < count; from += runLength) {
            int start = from;
            int end = Math.min(count, from + runLength);
            try {
                executor.execute(() -> runAll(tasks, start, end));
            } catch (RuntimeException rejected) { // as in dispatch: every task reported, none lost
                for (int i = start; i < end; i++) {
                    runRejected(tasks[i], rejected);
                }
            }
        }
    }

    private void runAll(TimerTask[] tasks, int start, int end) {
        for (int i = start; i < end; i++) {
            runTask(tasks[i]);
        }
    }

    /** The executor would not take {@code task}: count and report that, then run it here, so it is not lost. */
    private void runRejected(TimerTask task, RuntimeException rejected) {
        failedTasks.increment();
        TimerConfig.report(task, rejected, errorHandler);
        runTask(task);
    }

    private void runTask(TimerTask task) {
        TimerConfig.runGuarded(task, errorHandler, countFailure);
    }

    /** Builds a {@link SystemTimer}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private long tickMs = TimerConfig.DEFAULT_TICK_MS;
        private int wheelSize = TimerConfig.DEFAULT_WHEEL_SIZE;
        private Clock clock = Clock.system();
        private Executor executor;
        private TaskErrorHandler errorHandler = TaskErrorHandler.logging();

        private Builder(String name) {
            this.name = TimerConfig.checkName(name);
        }

        /** The duration of one bucket of the finest wheel, in ms (default 1). */
        public Builder tickMs(long tickMs) {
            this.tickMs = TimerConfig.checkTickMs(tickMs);
            return this;
        }

        /** The number of buckets per wheel, 2 to 65536 (default 20). */
        public Builder wheelSize(int wheelSize) {
            this.wheelSize = TimerConfig.checkWheelSize(wheelSize);
            return this;
        }

        /** The clock (default {@link Clock#system()}). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where due tasks run (default: one daemon thread owned by the timer). An executor given
         * here is not shut down by {@link SystemTimer#close()}.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Receives task failures (default {@link TaskErrorHandler#logging()}). */
        public Builder errorHandler(TaskErrorHandler errorHandler) {
            this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
            return this;
        }

        public SystemTimer build() {
            return new SystemTimer(this);
        }
    }
}
