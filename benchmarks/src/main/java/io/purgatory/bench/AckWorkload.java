package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Workload 1, the trigger path (acks=all). One producer thread creates operations watched on 3
 * distinct keys of 1000, each requiring every key's offset to pass its value at creation, with at
 * most 10,000 in flight; one acker thread advances a random key's offset and calls
 * {@code checkAndComplete(key)}. Measures completions per second and process CPU per completion
 * over a fixed window after a ramp-up. Operations time out after 30 s, so none expires. Both
 * watch plainly: every operation requires its keys' next offsets, so the next move of a key
 * reaches every operation on it and positioned waits would skip nothing (measured: they only
 * added their nodes' cost; docs/benchmarks.md).
 *
 * <p>The harness keeps out of the way of what it measures, for both implementations alike:
 * <ul>
 *   <li>The window is the producer's own count of submissions minus the completions, read only
 *       when that count says the window may be full. A shared in-flight counter, written by both
 *       threads on every operation, moved its cache line between the cores twice per operation.
 *   <li>While the window is full the producer sleeps {@value #FULL_WINDOW_PARK_NANOS} ns (a timed
 *       park, no hand-off): the acker completes a few dozen operations meanwhile, out of 10,000
 *       in flight. A blocking hand-off (a semaphore) made park/unpark system calls the bulk of the
 *       cost; spinning with yield counted a whole core of waiting as CPU, which made "CPU per
 *       completion" two cores divided by the rate, whatever each completion cost.
 * </ul>
 */
final class AckWorkload extends Workload {

    static final String TITLE = "1 acks";
    static final Metric RATE = new Metric(TITLE, "completions/s", Bar.atLeastTimesKafka(2));
    static final Metric CPU = new Metric(TITLE, "CPU ns/completion", Bar.atMostFractionOfKafka(0.5));
    static final Metric THREAD_CPU = new Metric(TITLE, "CPU ns/completion (producer and acker threads)");
    static final Metric TRIES = new Metric(TITLE, "tries/completion");
    static final Metric ALLOCATED = new Metric(TITLE, "bytes allocated/completion (all Java threads)");
    private static final long TIMEOUT_MS = 30_000;
    private static final long FULL_WINDOW_PARK_NANOS = 20_000;
    private static final int SLICES = 10;

    AckWorkload() {
        super("acks", TITLE, List.of(Impl.OURS, Impl.KAFKA, Impl.FLOOR, Impl.PROTO));
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        BenchKey[] keys = BenchKey.range(sizes.acksKeys());
        AtomicLongArray offsets = new AtomicLongArray(keys.length);
        int window = sizes.acksInFlight();
        LongAdder completed = new LongAdder();
        LongAdder tries = new LongAdder();
        AtomicLong submitted = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, "acks-" + impl.id())) {
            Thread producer = Threads.start("acks-producer", () -> {
                SplittableRandom random = new SplittableRandom(1);
                long completedSeen = 0;
                while (!stop.get()) {
                    if (submitted.get() - completedSeen >= window) {
                        completedSeen = completed.sum();
                        if (submitted.get() - completedSeen >= window) {
                            LockSupport.parkNanos(FULL_WINDOW_PARK_NANOS);
                        }
                        continue;
                    }
                    submitted.setRelease(submitted.get() + 1); // the producer is its only writer
                    int a = random.nextInt(keys.length);
                    int b = distinct(random, keys.length, a, a);
                    int c = distinct(random, keys.length, a, b);
                    AckBody body = new AckBody(offsets, completed, tries,
                            a, offsets.get(a) + 1, b, offsets.get(b) + 1, c, offsets.get(c) + 1);
                    purgatory.tryCompleteElseWatch(purgatory.newOperation(body, TIMEOUT_MS),
                            List.of(keys[a], keys[b], keys[c]));
                }
            });
            Thread acker = Threads.start("acks-acker", () -> {
                SplittableRandom random = new SplittableRandom(2);
                while (!stop.get()) {
                    int k = random.nextInt(keys.length);
                    offsets.incrementAndGet(k);
                    purgatory.checkAndComplete(keys[k]);
                }
            });
            Threads.sleepMillis(sizes.acksMillis() / 5); // ramp-up: fill the in-flight window
            long c0 = completed.sum();
            long tries0 = tries.sum();
            Map<Long, Long> allocated0 = Probe.allocatedBytesByThread();
            long cpu0 = Probe.processCpuNanos();
            long threadCpu0 = Probe.threadCpuNanos(producer, acker);
            long t0 = System.nanoTime();
            StringBuilder perSlice = new StringBuilder();
            long before = c0;
            long sliceStart = t0;
            for (int i = 0; i < SLICES; i++) { // the rate per tenth of the window: shows the machine's speed changes
                Threads.sleepMillis(sizes.acksMillis() / SLICES);
                long now = completed.sum();
                long sliceEnd = System.nanoTime();
                perSlice.append(String.format(Locale.ROOT, " %.2f", (now - before) * 1e3 / (sliceEnd - sliceStart)));
                before = now;
                sliceStart = sliceEnd;
            }
            long c1 = completed.sum();
            long cpu1 = Probe.processCpuNanos();
            long threadCpu1 = Probe.threadCpuNanos(producer, acker);
            long t1 = System.nanoTime();
            long tries1 = tries.sum();
            long allocated = Probe.allocatedBetween(allocated0, Probe.allocatedBytesByThread());
            stop.set(true);
            Threads.joinAll(producer, acker);
            long n = c1 - c0;
            recorder.record(RATE, n * 1e9 / (t1 - t0));
            recorder.record(CPU, n == 0 ? Double.NaN : (double) (cpu1 - cpu0) / n);
            recorder.record(THREAD_CPU, n == 0 ? Double.NaN : (double) (threadCpu1 - threadCpu0) / n);
            recorder.record(TRIES, n == 0 ? Double.NaN : (double) (tries1 - tries0) / n);
            recorder.record(ALLOCATED, n == 0 ? Double.NaN : (double) allocated / n);
            log.printf("    %s: %,d completions in %d ms, %d in flight at the end; M/s per tenth:%s%n", impl.id(), n,
                    (t1 - t0) / 1_000_000, submitted.get() - completed.sum(), perSlice);
        }
    }

    /**
     * Then a note on each yardstick, which has no column: the floor (FloorPurgatory) and the
     * prototype (ProtoPurgatory), each metric's median and its ratios to Kafka's and ours, paired by round.
     */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        super.runAll(sizes, options, results, log);
        List<Metric> metrics = List.of(RATE, CPU, THREAD_CPU, TRIES, ALLOCATED);
        if (results.medians(RATE).containsKey(Impl.FLOOR)) {
            results.note("Workload 1's " + Impl.FLOOR.label() + ", see FloorPurgatory: "
                    + results.describe(Impl.FLOOR, metrics, List.of(Impl.KAFKA, Impl.OURS))
                    + ". A yardstick, not a bound: what one simple design does without a timer, gauges or"
                    + " removal on settle.");
        }
        if (results.medians(RATE).containsKey(Impl.PROTO)) {
            results.note("Workload 1's " + Impl.PROTO.label() + ", see ProtoPurgatory: "
                    + results.describe(Impl.PROTO, metrics, List.of(Impl.KAFKA, Impl.OURS, Impl.FLOOR))
                    + ". What a timer and eager removal cost at best.");
        }
    }

    private static int distinct(SplittableRandom random, int n, int x, int y) {
        int k;
        do {
            k = random.nextInt(n);
        } while (k == x || k == y);
        return k;
    }

    /** Completes once each of its three keys' offsets reached the required value. */
    private static final class AckBody implements OpBody {
        private final AtomicLongArray offsets;
        private final LongAdder completed;
        private final LongAdder triesCompleted;
        /** Tries of this operation; racy where an implementation lets two threads try it at once. */
        private int tries;
        private final int k0;
        private final int k1;
        private final int k2;
        private final long r0;
        private final long r1;
        private final long r2;

        AckBody(AtomicLongArray offsets, LongAdder completed, LongAdder triesCompleted,
                int k0, long r0, int k1, long r1, int k2, long r2) {
            this.offsets = offsets;
            this.completed = completed;
            this.triesCompleted = triesCompleted;
            this.k0 = k0;
            this.k1 = k1;
            this.k2 = k2;
            this.r0 = r0;
            this.r1 = r1;
            this.r2 = r2;
        }

        @Override
        public boolean canComplete() {
            tries++;
            return offsets.get(k0) >= r0 && offsets.get(k1) >= r1 && offsets.get(k2) >= r2;
        }

        @Override
        public void completed() {
            triesCompleted.add(tries); // counted at completion: an operation's tries after it are not
            completed.increment();
        }
    }
}
