package io.purgatory.bench.jmh;

import io.purgatory.bench.Impl;
import io.purgatory.bench.TaskBody;
import io.purgatory.bench.TimerUnderTest;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Schedule and cancel on the four timers, each driven by its own thread as in production, with
 * 20,000 tasks of 30 s already scheduled. {@code scheduleCancelReused} schedules the same task
 * object every time: with {@code -prof gc}, its B/op is what the timer itself allocates per
 * schedule + cancel. {@code schedule} and {@code cancel} time one side each, in batches.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TimerBenchmark {

    static final long LONG_MS = 30_000;
    static final int BATCH = 1_000;
    private static final int OUTSTANDING = 20_000;

    @Param({"ours", "kafka", "netty", "jdk"})
    public String impl;

    private TimerUnderTest timer;
    private Object reusable;
    private Object[] ring;
    private int next;
    private Object[] batchTasks;
    private Object[] batchHandles;

    @Setup(Level.Trial)
    public void setUp() {
        timer = TimerUnderTest.create(Impl.of(impl), "jmh-timer-" + impl);
        reusable = timer.newTask(LONG_MS, TaskBody.NOOP);
        ring = new Object[OUTSTANDING];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = timer.schedule(LONG_MS, TaskBody.NOOP);
        }
        batchTasks = new Object[BATCH];
        batchHandles = new Object[BATCH];
        for (int i = 0; i < BATCH; i++) {
            batchTasks[i] = timer.newTask(LONG_MS, TaskBody.NOOP);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        timer.close();
    }

    /** A new task, scheduled and cancelled: B/op is the task plus whatever the timer allocates. */
    @Benchmark
    public Object scheduleCancel() {
        Object handle = timer.schedule(LONG_MS, TaskBody.NOOP);
        timer.cancel(handle);
        return handle;
    }

    /** The same task scheduled and cancelled: B/op is what the timer allocates. */
    @Benchmark
    public Object scheduleCancelReused() {
        Object handle = timer.schedule(reusable);
        timer.cancel(handle);
        return handle;
    }

    /** Cancel the oldest of the outstanding tasks, schedule a new one in its place. */
    @Benchmark
    public Object churn() {
        int i = next;
        timer.cancel(ring[i]);
        Object handle = timer.schedule(LONG_MS, TaskBody.NOOP);
        ring[i] = handle;
        next = i + 1 == ring.length ? 0 : i + 1;
        return handle;
    }

    /** Timed: scheduling a batch of (reused) tasks. Untimed: cancelling them afterwards. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void schedule(ScheduleBatch batch) {
        for (int i = 0; i < BATCH; i++) {
            batchHandles[i] = timer.schedule(batchTasks[i]);
        }
    }

    /** Timed: cancelling a batch of tasks scheduled (untimed) just before. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cancel(CancelBatch batch) {
        for (int i = 0; i < BATCH; i++) {
            timer.cancel(batchHandles[i]);
        }
    }

    /** Cancels what {@link #schedule} scheduled, outside the timed region. */
    @State(Scope.Thread)
    public static class ScheduleBatch {
        private TimerBenchmark owner;

        @Setup(Level.Trial)
        public void bind(TimerBenchmark benchmark) {
            owner = benchmark;
        }

        @TearDown(Level.Invocation)
        public void cancelAll() {
            for (int i = 0; i < BATCH; i++) {
                owner.timer.cancel(owner.batchHandles[i]);
            }
        }
    }

    /** Schedules the batch that {@link #cancel} cancels, outside the timed region. */
    @State(Scope.Thread)
    public static class CancelBatch {
        @Setup(Level.Invocation)
        public void scheduleAll(TimerBenchmark benchmark) {
            for (int i = 0; i < BATCH; i++) {
                benchmark.batchHandles[i] = benchmark.timer.schedule(benchmark.batchTasks[i]);
            }
        }
    }
}
