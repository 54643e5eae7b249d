package io.purgatory.bench.jmh;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.bench.BenchKey;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 13 item 2: what settling one operation costs when its keys' lists are short or long. A pool
 * of {@code pending} operations (ours only) waits; each call picks a random one (as when requests
 * complete in random order: the operation and its neighbours on the lists are cold), settles it,
 * and submits a fresh operation in its place, so the lists keep their length. The score is
 * therefore settle + submit. {@code lists} says what the operations watch:
 *
 * <ul>
 *   <li>{@code hot1}: one key, the same for all, so its list holds every pending operation (each
 *       operation is its own node there);
 *   <li>{@code hot3}: the same three keys, as in the perf ladder (a node per key);
 *   <li>{@code spread}: one key of {@code pending / 10}, so every list holds 10 operations:
 *       as many pending operations as the hot rows, on short lists.
 * </ul>
 *
 * <p>Settled by {@code cancel}, {@code expire} (the timer's expiry, {@code run()}) and
 * {@code forceComplete} (a completion from outside, as the perf ladder's completion thread makes);
 * {@code completeByCheck}: each operation also watches a key of its own, and a
 * {@code checkAndComplete} of that key completes it (the check never walks a long list).
 *
 * <p>Not part of {@code compare} (its JMH workload excludes it); run it alone:
 * {@code java -jar benchmarks.jar jmh SettleBenchmark -p pending=10,100000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SettleBenchmark {

    private static final long TIMEOUT_MS = 600_000;

    /**
     * The pool of pending operations, one per benchmark thread: on the keys {@code lists} says, and
     * for {@code completeByCheck} on a key of each operation's own too.
     */
    @State(Scope.Thread)
    public static class Pool {

        /** Pending operations. */
        @Param({"10", "100000"})
        public int pending;

        /** What each operation watches: hot1, hot3 or spread (see the class comment). */
        @Param({"hot1", "hot3", "spread"})
        public String lists;

        /** Whether operations are also on the timer (the purgatory's default), or timerEnabled(false). */
        @Param({"true", "false"})
        public boolean timer;

        DelayedOperationPurgatory<Op> purgatory;
        Op[] ops;
        private List<List<BenchKey>> keysOf;
        BenchKey[] ownKeys;
        private final SplittableRandom random = new SplittableRandom(42);

        @Setup
        public void setUp(BenchmarkParams params) {
            boolean ownKey = params.getBenchmark().endsWith(".completeByCheck");
            int shared = switch (lists) {
                case "hot1" -> 1;
                case "hot3" -> 3;
                case "spread" -> Math.max(1, pending / 10);
                default -> throw new IllegalArgumentException("lists: " + lists);
            };
            purgatory = DelayedOperationPurgatory.<Op>builder("jmh-settle").timerEnabled(timer).build();
            BenchKey[] keys = BenchKey.range(shared + (ownKey ? pending : 0));
            List<BenchKey> hot = List.of(keys).subList(0, lists.equals("spread") ? 0 : shared);
            List<BenchKey> same = List.copyOf(hot); // one for all: a list per operation is one more cold line
            ops = new Op[pending];
            keysOf = new ArrayList<>(pending);
            ownKeys = new BenchKey[pending];
            for (int i = 0; i < pending; i++) {
                List<BenchKey> mine = new ArrayList<>(hot);
                if (lists.equals("spread")) {
                    mine.add(keys[i % shared]);
                }
                if (ownKey) {
                    ownKeys[i] = keys[shared + i];
                    mine.add(ownKeys[i]);
                }
                if (mine.equals(same)) {
                    keysOf.add(same);
                } else if (!ownKey) { // spread: the key's own one-element list, shared by its 10 operations
                    keysOf.add(keys[i % shared].asList());
                } else {
                    keysOf.add(List.copyOf(mine));
                }
                submit(i);
            }
            if (purgatory.numDelayed() != pending) {
                throw new IllegalStateException("pool not full: " + purgatory.numDelayed());
            }
        }

        @TearDown
        public void tearDown() {
            if (purgatory.numDelayed() != pending) {
                throw new IllegalStateException("pool lost operations: " + purgatory.numDelayed() + " of " + pending);
            }
            purgatory.close();
        }

        void submit(int slot) {
            Op op = new Op();
            ops[slot] = op;
            purgatory.tryCompleteElseWatch(op, keysOf.get(slot));
        }

        int slot() {
            return random.nextInt(pending);
        }
    }

    @Benchmark
    public boolean cancel(Pool pool) {
        int slot = pool.slot();
        boolean settled = pool.ops[slot].cancel();
        pool.submit(slot);
        return settled;
    }

    @Benchmark
    public boolean expire(Pool pool) {
        int slot = pool.slot();
        Op op = pool.ops[slot];
        op.run();
        pool.submit(slot);
        return op.isCompleted();
    }

    @Benchmark
    public boolean forceComplete(Pool pool) {
        int slot = pool.slot();
        boolean settled = pool.ops[slot].forceComplete();
        pool.submit(slot);
        return settled;
    }

    @Benchmark
    public int completeByCheck(Pool pool) {
        int slot = pool.slot();
        pool.ops[slot].ready = true;
        int completed = pool.purgatory.checkAndComplete(pool.ownKeys[slot]);
        pool.submit(slot);
        return completed;
    }

    /** Completes once {@code ready}. */
    static final class Op extends DelayedOperation {
        boolean ready;

        Op() {
            super(TIMEOUT_MS);
        }

        @Override
        protected boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }
    }
}
