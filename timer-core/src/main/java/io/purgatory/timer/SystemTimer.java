package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Timer} on real time: a hierarchical timing wheel whose clock jumps straight to the next
 * non-empty bucket, so an idle timer does no work. Add and cancel are lock-free and allocate
 * nothing; expiry is O(1) per task plus O(levels) per re-insertion from a coarser wheel. With
 * {@link Builder#backPressure back-pressure}, an add waits (boundedly) while expiries run late.
 *
 * <p>The timer starts no thread of its own for driving: whoever calls {@link #advanceClock(long)}
 * drives it (one thread at a time), usually a {@link SystemTimerReaper} or a purgatory's reaper.
 * Due tasks run on the executor (default: one daemon thread named {@code <name>-executor},
 * created on first use), handed over in runs of up to 32 tasks due in the same tick: a slow task
 * can delay the others of its run, never those of other runs or ticks.
 *
 * <p>Failures: a task that throws (an Error too) goes to the {@link TaskErrorHandler} and is
 * counted. A hand-off the executor fails, whatever it throws (an {@code OutOfMemoryError} when it
 * cannot start a thread too), runs its tasks on the driving thread instead, each reported and
 * counted; nothing is rethrown, and no task is lost or run twice. A refusal because the timer is
 * closing is expected: those tasks run on the calling thread, unreported.
 *
 * <p>{@link #close()} cancels the tasks still scheduled (they never run), lets tasks already
 * handed to the executor finish, shuts the default executor down and returns without waiting.
 * No thread of this timer keeps the JVM alive.
 */
public final class SystemTimer implements Timer {

    /*
     * Implementation notes.
     *
     * A hand-off is a Run object, claimed by one CAS by whoever runs it first: the executor's
     * thread, or the driver after execute threw. An executor may fail after it queued the command
     * (ThreadPoolExecutor queues it, then fails to start a worker) or after it ran it inline, so
     * the driver runs the tasks itself only if it wins the claim: each task runs exactly once.
     * Errors are caught as well as exceptions: rethrowing one would leave the rest of a batch
     * unhanded, and the driver's state is the engine's to keep consistent. The handler sees the
     * Error; what a JVM in trouble then does is the application's call.
     */

    /** Expired tasks handed to the executor in one runnable, at most. */
    static final int MAX_RUN = 32;

    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(Run.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TimerEngine engine;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final TaskRunner runner;
    /** Null unless the builder set a bound. */
    private final BackPressure backPressure;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A timer with the default settings ({@link TimerSettings#DEFAULT}) on the system clock. */
    public SystemTimer(String name) {
        this(builder(name));
    }

    /**
     * A timer with the given tick and wheel size, on the system clock.
     *
     * @throws IllegalArgumentException if {@code tickMs} or {@code wheelSize} is out of the bounds of
     *     {@link TimerSettings}
     */
    public SystemTimer(String name, long tickMs, int wheelSize) {
        this(builder(name).settings(TimerSettings.DEFAULT.withTickMs(tickMs).withWheelSize(wheelSize)));
    }

    private SystemTimer(Builder b) {
        this.runner = new TaskRunner(b.errorHandler);
        if (b.executor == null) {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(), DaemonThreads.factory(b.name + "-executor"));
            this.ownedExecutor = pool;
            this.executor = pool;
        } else {
            this.ownedExecutor = null;
            this.executor = b.executor;
        }
        this.engine = new TimerEngine(b.name, b.settings, b.clock, new Dispatcher() {
            @Override
            public void dispatch(TimerEntry task) {
                SystemTimer.this.dispatch(task);
            }

            @Override
            public void dispatchAll(TimerEntry[] tasks, int count) {
                SystemTimer.this.dispatchAll(tasks, count);
            }
        }, true);
        this.backPressure = b.settings.hasBackPressure()
                ? new BackPressure(engine, b.settings.backPressure().toMillis()) : null;
    }

    /** Starts a builder for a timer named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * {@inheritDoc} With back-pressure ({@link TimerSettings#backPressure()}) it may first wait for
     * the expiries to catch up ({@link #awaitBackPressure()}).
     */
    @Override
    public void add(TimerTask task) {
        Objects.requireNonNull(task, "task");
        awaitBackPressure();
        engine.schedule(task);
    }

    /**
     * Waits while expiries run more than the back-pressure bound ({@link TimerSettings#backPressure()})
     * behind their deadlines, until they are within half of it, for at most the bound: what
     * {@link #add} does first. Returns at once without back-pressure, on the timer's own threads
     * (the one driving it, and the executor's while it runs this timer's tasks), on an
     * interrupted thread (the interrupt stays set) and once the timer is closed.
     */
    public void awaitBackPressure() {
        if (backPressure != null) {
            backPressure.await();
        }
    }

    /**
     * Runs the tasks that are due, waiting up to {@code timeoutMs} of real time for the first of
     * them to become due, also on a clock that does not move by itself.
     */
    @Override
    public boolean advanceClock(long timeoutMs) throws InterruptedException {
        TimerConfig.checkTimeoutMs(timeoutMs);
        return engine.advance(TimingWheel.saturatedMultiply(timeoutMs, TimeUnit.MILLISECONDS.toNanos(1)));
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
        return runner.failures();
    }

    /**
     * How far behind their deadlines expiries run now, in ms: 0 while they keep up. With
     * {@link Builder#backPressure} it counts the tasks waiting in the executor as well; without
     * it, only the driver's lag (due tasks it has not expired yet).
     */
    public long lagMs() {
        return backPressure != null ? backPressure.lagMs() : engine.lagMs(engine.nowMs());
    }

    /** How many adds waited for expiries to catch up ({@link Builder#backPressure}); 0 without it. */
    public long backPressureWaits() {
        return backPressure != null ? backPressure.waits() : 0L;
    }

    /** How long adds waited for expiries to catch up, in total ({@link Builder#backPressure}). */
    public Duration backPressureWaited() {
        return Duration.ofNanos(backPressure != null ? backPressure.waitedNanos() : 0L);
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

    private void dispatch(TimerEntry task) {
        handOff(new Run(null, task, 0, 1));
    }

    /**
     * Hands tasks due together to the executor in runs of at most MAX_RUN, in order, split evenly:
     * a thousand expirations due in the same millisecond cost a few dozen hand-offs instead of a
     * thousand, while a pool of several threads still shares them.
     */
    private void dispatchAll(TimerEntry[] tasks, int count) {
        int runs = (count + MAX_RUN - 1) / MAX_RUN;
        int runLength = (count + runs - 1) / runs;
        for (int from = 0; from < count; from += runLength) {
            handOff(new Run(tasks, null, from, Math.min(count, from + runLength)));
        }
    }

    /** Hands {@code run} to the executor; if that throws anything, runs it here unless it ran. Never throws. */
    private void handOff(Run run) {
        if (backPressure != null) {
            backPressure.handedOff(run.task(run.start));
        }
        run.handing = Thread.currentThread();
        try {
            executor.execute(run);
        } catch (Throwable failure) {
            if (run.claim()) { // else the executor ran it, or will, before or despite failing
                if (backPressure != null) {
                    backPressure.refused();
                }
                runRefused(run, failure);
            }
        } finally {
            run.handing = null;
        }
    }

    /**
     * The executor would not take {@code run}. A refusal because the timer is closing is expected:
     * run what expired (drop what the close cancelled), unreported. Otherwise count and report each
     * task, then run it here, so it is not lost.
     */
    private void runRefused(Run run, Throwable failure) {
        boolean closing = closed.get() && failure instanceof RejectedExecutionException;
        for (int i = run.start; i < run.end; i++) {
            TimerEntry task = run.task(i);
            if (closing) {
                if ((task.state() & TimerEntry.LIFECYCLE) != TimerEntry.CANCELLED) {
                    runner.run(task);
                }
            } else {
                runner.fail(task, failure);
                runner.run(task);
            }
        }
    }

    /** One hand-off: tasks[start..end), or the single {@code task}; runs at most once (claim). */
    private final class Run implements Runnable {
        private final TimerEntry[] tasks;
        private final TimerEntry task;
        private final int start;
        private final int end;
        @SuppressWarnings("unused") // through CLAIMED
        private volatile boolean claimed;
        /** The thread handing it to the executor, while it does: a run on it is inline (BackPressure G1). */
        Thread handing;

        Run(TimerEntry[] tasks, TimerEntry task, int start, int end) {
            this.tasks = tasks;
            this.task = task;
            this.start = start;
            this.end = end;
        }

        TimerEntry task(int i) {
            return tasks == null ? task : tasks[i];
        }

        boolean claim() {
            return CLAIMED.compareAndSet(this, false, true);
        }

        @Override
        public void run() {
            if (!claim()) {
                return;
            }
            if (backPressure == null) {
                runAll();
                return;
            }
            boolean outer = backPressure.runStarting(task(start), handing == Thread.currentThread());
            try {
                runAll();
            } finally {
                backPressure.runFinished(outer);
            }
        }

        private void runAll() {
            for (int i = start; i < end; i++) {
                runner.run(task(i));
            }
        }
    }

    /** Builds a {@link SystemTimer}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private TimerSettings settings = TimerSettings.DEFAULT;
        private Clock clock = Clock.system();
        private Executor executor;
        private TaskErrorHandler errorHandler = TaskErrorHandler.logging();

        private Builder(String name) {
            this.name = TimerConfig.checkName(name);
        }

        /**
         * The wheel's tick and size, and the back-pressure bound (default {@link TimerSettings#DEFAULT}:
         * none). With back-pressure, while expiries run more than the bound behind their deadlines,
         * {@link SystemTimer#add} waits for them to catch up to half of it, for at most the bound per
         * call: a thread adding faster than the timer can expire slows to the rate it can, and
         * lateness stays near the bound instead of growing with the backlog.
         */
        public Builder settings(TimerSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
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

        /** A new timer with this configuration. */
        public SystemTimer build() {
            return new SystemTimer(this);
        }
    }
}
