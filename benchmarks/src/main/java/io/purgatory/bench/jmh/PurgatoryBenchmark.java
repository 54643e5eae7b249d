package io.purgatory.bench.jmh;

import io.purgatory.bench.BenchKey;
import io.purgatory.bench.Completable;
import io.purgatory.bench.Impl;
import io.purgatory.bench.OpBody;
import io.purgatory.bench.PurgatoryUnderTest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One operation's life on the trigger path: {@code tryCompleteElseWatch} (it cannot complete yet,
 * so it is watched on one key of 1024 and put on the timer with 30 s), then the condition becomes
 * true and {@code checkAndComplete(key)} completes it. With 1 and 2 threads (each thread walks the
 * keys from its own offset). B/op with {@code -prof gc} includes the operation and its body.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PurgatoryBenchmark {

    private static final int KEYS = 1024;
    private static final long TIMEOUT_MS = 30_000;

    @Param({"ours", "kafka"})
    public String impl;

    private PurgatoryUnderTest purgatory;
    private final BenchKey[] keys = BenchKey.range(KEYS);
    private final AtomicInteger threadIndex = new AtomicInteger();

    @Setup
    public void setUp() {
        purgatory = PurgatoryUnderTest.create(Impl.of(impl), "jmh-purgatory-" + impl);
    }

    @TearDown
    public void tearDown() {
        purgatory.close();
    }

    @Benchmark
    @Threads(1)
    public int watchThenComplete(Cursor cursor) {
        return cycle(cursor);
    }

    @Benchmark
    @Threads(2)
    public int watchThenComplete2Threads(Cursor cursor) {
        return cycle(cursor);
    }

    private int cycle(Cursor cursor) {
        BenchKey key = keys[cursor.next++ & (KEYS - 1)];
        Flag body = new Flag();
        Completable operation = purgatory.newOperation(body, TIMEOUT_MS);
        purgatory.tryCompleteElseWatch(operation, key.asList());
        body.ready = true;
        return purgatory.checkAndComplete(key);
    }

    /** Each thread's position in the key space. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;

        @Setup
        public void start(PurgatoryBenchmark benchmark) {
            next = benchmark.threadIndex.getAndIncrement() * (KEYS / 2);
        }
    }

    /** Completes once its flag is set. */
    static final class Flag implements OpBody {
        boolean ready;

        @Override
        public boolean canComplete() {
            return ready;
        }
    }
}
