package io.purgatory.bench.jmh;

import io.purgatory.timer.ManualClock;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerTask;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Expiry on our SystemTimer, made deterministic: a {@link ManualClock} and a direct executor, so
 * the benchmark thread schedules a batch of (reused) tasks of 1..20 ms, moves the clock 21 ms and
 * drives the timer, which expires and runs every task. Ours only: Kafka's SystemTimer reads the
 * system clock and cannot be driven this way.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ExpireBenchmark {

    private static final int BATCH = 1_000;

    private ManualClock clock;
    private SystemTimer timer;
    private Task[] tasks;
    private long runs;

    @Setup
    public void setUp() {
        clock = new ManualClock();
        timer = SystemTimer.builder("jmh-expire").clock(clock).executor(Runnable::run).build();
        tasks = new Task[BATCH];
        for (int i = 0; i < BATCH; i++) {
            tasks[i] = new Task(1 + i % 20, this);
        }
    }

    @TearDown
    public void tearDown() {
        timer.close();
    }

    /** Per task: schedule, then expire and run. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long scheduleExpire() throws InterruptedException {
        for (Task task : tasks) {
            timer.add(task);
        }
        clock.advanceMillis(21);
        timer.advanceClock(0);
        return runs;
    }

    static final class Task extends TimerTask {
        private final ExpireBenchmark owner;

        Task(long delayMs, ExpireBenchmark owner) {
            super(delayMs);
            this.owner = owner;
        }

        @Override
        public void run() {
            owner.runs++;
        }
    }
}
