package io.purgatory.bench;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * The purgatory's settle of an expiry alone, without the timer: {@code n} operations watched on
 * 1,000 keys in turn (as workload 2), then expired by calling {@code run()} in a random order from
 * {@code threads} threads, as the timer's expiration threads would; prints their CPU per expiry,
 * each repetition on a new purgatory, and the median. Not part of {@code compare}: a probe for
 * profiling (docs/benchmarks.md, "The purgatory's settle, alone").
 */
final class SettleCost {

    static final String COMMAND = "settle";
    static final String USAGE = COMMAND + " [operations (2000000) [threads (2) [repetitions (5)]]]";
    private static final int KEYS = 1_000;

    private SettleCost() {
    }

    /** Runs the probe with {@code args} (see {@link #USAGE}); returns the exit status. */
    static int run(String[] args) throws InterruptedException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        if (n < 1 || threads < 1 || repetitions < 1) {
            System.err.println("usage: java -jar benchmarks.jar " + USAGE);
            return 2;
        }
        List<List<BenchKey>> keys = new ArrayList<>();
        for (BenchKey key : BenchKey.range(KEYS)) {
            keys.add(key.asList());
        }
        double[] perExpiry = new double[repetitions];
        for (int r = 0; r < repetitions; r++) {
            perExpiry[r] = once(n, threads, keys, new SplittableRandom(42 + r));
            System.out.printf(Locale.ROOT, "repetition %d: %.0f ns of CPU per expiry%n", r, perExpiry[r]);
        }
        Arrays.sort(perExpiry);
        System.out.printf(Locale.ROOT, "median %.0f ns of CPU per expiry (%,d operations, %d threads)%n",
                perExpiry[repetitions / 2], n, threads);
        return 0;
    }

    private static double once(int n, int threads, List<List<BenchKey>> keys, SplittableRandom random)
            throws InterruptedException {
        DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("settle-probe")
                .timerEnabled(false).build();
        try {
            long[] sink = new long[1_024];
            Op[] ops = new Op[n];
            for (int i = 0; i < n; i++) {
                ops[i] = new Op(sink, i);
                purgatory.tryCompleteElseWatch(ops[i], keys.get(i % keys.size()));
            }
            int[] order = shuffled(n, random);
            System.gc();
            long[] cpu = new long[threads];
            Thread[] expirers = new Thread[threads];
            CyclicBarrier start = new CyclicBarrier(threads);
            for (int t = 0; t < threads; t++) {
                int first = t;
                expirers[t] = new Thread(() -> cpu[first] = expire(ops, order, first, threads, start),
                        "settle-probe-" + t);
                expirers[t].start();
            }
            for (Thread expirer : expirers) {
                expirer.join();
            }
            if (purgatory.numDelayed() != 0 || purgatory.watched() != 0) {
                throw new IllegalStateException("operations left after every expiry: " + purgatory.numDelayed());
            }
            return (double) Arrays.stream(cpu).sum() / n;
        } finally {
            purgatory.close();
        }
    }

    /** Expires every {@code step}-th operation of {@code order} from {@code first}; returns this thread's CPU ns. */
    private static long expire(Op[] ops, int[] order, int first, int step, CyclicBarrier start) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (BrokenBarrierException e) {
            throw new IllegalStateException(e);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        for (int i = first; i < order.length; i += step) {
            ops[order[i]].run();
        }
        return threads.getCurrentThreadCpuTime() - cpu0;
    }

    private static int[] shuffled(int n, SplittableRandom random) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    /** An operation that never completes; its expiry bumps a counter, as the harness's body records a fire. */
    private static final class Op extends DelayedOperation {
        private final long[] sink;
        private final int index;

        Op(long[] sink, int index) {
            super(3_600_000L);
            this.sink = sink;
            this.index = index;
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
            sink[index & (sink.length - 1)]++;
        }

        @Override
        protected void onExpiration() {
        }
    }
}
