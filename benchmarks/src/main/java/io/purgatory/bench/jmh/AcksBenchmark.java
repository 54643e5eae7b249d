package io.purgatory.bench.jmh;

import io.purgatory.bench.BenchKey;
import io.purgatory.bench.Impl;
import io.purgatory.bench.OpBody;
import io.purgatory.bench.PurgatoryUnderTest;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Workload 1 (acks) on one thread: the producer's and the acker's work interleaved, so what is
 * measured is the work per completion without the cross-core traffic and the scheduling of two
 * threads on a shared machine. Each call advances a random key of 1000 and checks it, then
 * refills the window of 10,000 operations in flight (each on 3 distinct keys, requiring their
 * next offsets). The score is checks per microsecond; the {@code completions} counter gives
 * completions per microsecond, and B/op with {@code -prof gc} is per check.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AcksBenchmark {

    private static final int KEYS = 1000;
    private static final int WINDOW = 10_000;
    private static final long TIMEOUT_MS = 30_000;

    @Param({"ours", "kafka", "floor", "proto"})
    public String impl;

    private PurgatoryUnderTest purgatory;
    private final BenchKey[] keys = BenchKey.range(KEYS);
    private final long[] offsets = new long[KEYS];
    private final SplittableRandom random = new SplittableRandom(1);
    private long submitted;
    private long completed;

    @Setup(Level.Trial)
    public void setUp() {
        purgatory = PurgatoryUnderTest.create(Impl.of(impl), "jmh-acks-" + impl);
        refill();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        purgatory.close();
    }

    /** Completions counted for JMH's secondary result. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Completions {
        public long completions;
    }

    @Benchmark
    public int checkThenRefill(Completions counter) {
        int k = random.nextInt(KEYS);
        offsets[k]++;
        long before = completed;
        int n = purgatory.checkAndComplete(keys[k]);
        refill();
        counter.completions += completed - before;
        return n;
    }

    private void refill() {
        while (submitted - completed < WINDOW) {
            submitted++;
            int a = random.nextInt(KEYS);
            int b = distinct(a, a);
            int c = distinct(a, b);
            Body body = new Body(a, offsets[a] + 1, b, offsets[b] + 1, c, offsets[c] + 1);
            purgatory.tryCompleteElseWatch(purgatory.newOperation(body, TIMEOUT_MS),
                    List.of(keys[a], keys[b], keys[c]));
        }
    }

    private int distinct(int x, int y) {
        int k;
        do {
            k = random.nextInt(KEYS);
        } while (k == x || k == y);
        return k;
    }

    /** Completes once each of its three keys' offsets reached the required value. */
    private final class Body implements OpBody {
        private final int k0;
        private final int k1;
        private final int k2;
        private final long r0;
        private final long r1;
        private final long r2;

        Body(int k0, long r0, int k1, long r1, int k2, long r2) {
            this.k0 = k0;
            this.k1 = k1;
            this.k2 = k2;
            this.r0 = r0;
            this.r1 = r1;
            this.r2 = r2;
        }

        @Override
        public boolean canComplete() {
            return offsets[k0] >= r0 && offsets[k1] >= r1 && offsets[k2] >= r2;
        }

        @Override
        public void completed() {
            completed++;
        }
    }
}
