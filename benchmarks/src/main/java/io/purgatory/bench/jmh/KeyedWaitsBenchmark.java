package io.purgatory.bench.jmh;

import io.purgatory.bench.KeyedWaitsUnderTest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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
 * One keyed wait's life: {@code await(key, 30 s)}, then {@code complete(key, value)} answers it and
 * the waiter reads the value. Ours ({@code ours}: defaults, no early events; {@code ours-retain}:
 * early events kept 30 s, at most 100,000 keys) against the plain-JDK map of futures ({@code jdk},
 * {@code JdkKeyedWaits}). Keys are boxed Longs, sequential like order ids, made up front; each
 * thread walks its own half of 2^18 of them, so a key comes back only after its early event has been
 * pushed out by 100,000 newer ones (no wait is answered early). {@code pending} other waits (on other
 * keys, 1 h timeout) are there throughout, so that the maps and the timer's queue are not empty.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class KeyedWaitsBenchmark {

    private static final int KEYS = 1 << 18;
    private static final int KEYS_PER_THREAD = KEYS / 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PENDING_TIMEOUT = Duration.ofHours(1);
    private static final Long VALUE = 42L;

    @Param({KeyedWaitsUnderTest.OURS, KeyedWaitsUnderTest.OURS_RETAIN, KeyedWaitsUnderTest.JDK})
    public String waits;

    @Param({"0", "100000"})
    public int pending;

    private KeyedWaitsUnderTest<Long, Long> keyedWaits;
    private final Long[] keys = new Long[KEYS];
    private final AtomicInteger threadIndex = new AtomicInteger();

    @Setup
    public void setUp() {
        for (int i = 0; i < KEYS; i++) {
            keys[i] = (long) i;
        }
        keyedWaits = KeyedWaitsUnderTest.create(waits, "jmh-keyed-" + waits);
        for (int i = 0; i < pending; i++) {
            CompletableFuture<Long> unused = keyedWaits.await((long) KEYS + i, PENDING_TIMEOUT);
        }
    }

    @TearDown
    public void tearDown() {
        if (keyedWaits.pending() != pending) {
            throw new IllegalStateException(
                    waits + ": " + keyedWaits.pending() + " waits pending, expected " + pending);
        }
        keyedWaits.close();
    }

    @Benchmark
    @Threads(1)
    public Long awaitThenComplete(Cursor cursor) {
        return cycle(cursor);
    }

    @Benchmark
    @Threads(2)
    public Long awaitThenComplete2Threads(Cursor cursor) {
        return cycle(cursor);
    }

    private Long cycle(Cursor cursor) {
        Long key = keys[cursor.base + (cursor.next++ & (KEYS_PER_THREAD - 1))];
        CompletableFuture<Long> future = keyedWaits.await(key, TIMEOUT);
        keyedWaits.complete(key, VALUE);
        return future.getNow(null);
    }

    /** Each thread's half of the keys, and its position in it. */
    @State(Scope.Thread)
    public static class Cursor {
        int base;
        int next;

        @Setup
        public void start(KeyedWaitsBenchmark benchmark) {
            base = (benchmark.threadIndex.getAndIncrement() & 1) * KEYS_PER_THREAD;
        }
    }
}
