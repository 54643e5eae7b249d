package io.purgatory.bench;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Workload 5: Kafka's TestPurgatoryPerformance with its original (Scala) semantics. One generator
 * thread submits operations at Poisson arrivals (exponential intervals in whole ms, residue
 * carried, sleeping until each arrival), all on the same 3 keys; an operation's completion latency
 * is log-normal (given p50 and p75); those that would complete before the 200 ms timeout are
 * force-completed at that time by a completion thread polling a DelayQueue, the rest expire;
 * {@code checkAndComplete} is never called. A step at a target rate passes if the generator
 * keeps up (actual enqueue rate >= 95% of the sampled target) and every operation ends. Each run
 * climbs a ladder of rates until a step fails. Measures the highest target rate sustained, the
 * highest enqueue rate reached, and process CPU per request at a fixed rate.
 *
 * <p>{@link Impl#FLOOR} runs the tool with no purgatory at all (no column; a note after the table):
 * an operation the completion thread will force is only a flag and a latch count, and one that
 * would expire ends at its submission. What it sustains bounds what any purgatory can sustain in
 * this tool on this machine, as the generator's own work (arrivals, sleeps, the completion queue's
 * {@code DelayQueue}, whose lock the completion thread also takes) is all that is left.
 * {@link Impl#TIMED_FLOOR} adds what every purgatory adds to a request, a timer entry
 * ({@link TimedFloor}): the requests that would expire do, at their timeout.
 */
final class PerfWorkload extends Workload {

    private static final long TIMEOUT_MS = 200;
    private static final int SAMPLES = 1_000_000;
    private static final double SUSTAINED = 0.95;

    private final Metric sustained;
    private final Metric reached;
    private final Metric cpu;
    private final Metric generatorCpu;
    private final Metric allocated;
    private final long[] latencies;
    private final Map<Integer, int[]> intervalsByRate = new HashMap<>();

    private PerfWorkload(String id, String title, double pct50, double pct75) {
        super(id, title, List.of(Impl.OURS, Impl.KAFKA, Impl.FLOOR, Impl.PROTO, Impl.TIMED_FLOOR));
        this.sustained = new Metric(title, "highest rate sustained (req/s)",
                new Bar(">= 0.8x floor", null, r -> r >= 0.8), Impl.FLOOR);
        this.reached = new Metric(title, "highest enqueue rate reached (req/s)");
        this.cpu = new Metric(title, "CPU us/request at the reference rate");
        this.generatorCpu = new Metric(title, "generator thread's CPU us/request at the reference rate");
        this.allocated = new Metric(title, "bytes allocated/request at the reference rate (all Java threads)");
        this.latencies = logNormalSamples(pct50, pct75);
    }

    /** p50 20 ms, p75 60 ms: about 92% complete before the timeout. */
    static PerfWorkload lowTimeout() {
        return new PerfWorkload("perf-low", "5 perf (p50 20/p75 60 ms)", 20, 60);
    }

    /** p50 200 ms, p75 400 ms: about half expire. */
    static PerfWorkload highTimeout() {
        return new PerfWorkload("perf-high", "5 perf (p50 200/p75 400 ms)", 200, 400);
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) throws Exception {
        double best = 0;
        double fastest = 0;
        double cpuPerRequest = Double.NaN;
        double bytesPerRequest = Double.NaN;
        double generatorCpuPerRequest = Double.NaN;
        for (int rate : sizes.perfRates()) {
            int n = (int) Math.max(1_000, rate * sizes.perfStepMillis() / 1000);
            Step step = runStep(impl, intervals(rate, n), n);
            Probe.settle(sizes);
            ThreadCpu.Split split = step.split;
            log.printf("    %s @ %,d/s: actual %,.0f/s (target %,.0f/s), cpu %.2f us/req (generator %.2f, completion"
                    + " thread %.2f, timer driver %.2f, other Java threads %.2f, GC/JIT/VM %.2f), %.0f B/req, %s%n",
                    impl.id(), rate, step.actualRate, step.targetRate, step.cpuNanos / 1e3 / n,
                    split.inserter() / 1e3 / n, split.executor() / 1e3 / n, split.driver() / 1e3 / n,
                    split.otherJava() / 1e3 / n, split.vm() / 1e3 / n, (double) step.allocatedBytes / n,
                    step.allDone ? "all done" : "NOT all done");
            fastest = Math.max(fastest, step.actualRate);
            if (rate == sizes.perfCpuRate()) {
                cpuPerRequest = step.cpuNanos / 1e3 / n;
                generatorCpuPerRequest = step.split.inserter() / 1e3 / n;
                bytesPerRequest = (double) step.allocatedBytes / n;
            }
            if (!step.allDone || step.actualRate < SUSTAINED * step.targetRate) {
                break;
            }
            best = rate;
        }
        recorder.record(sustained, best);
        recorder.record(reached, fastest);
        recorder.record(cpu, cpuPerRequest);
        recorder.record(generatorCpu, generatorCpuPerRequest);
        recorder.record(allocated, bytesPerRequest);
    }

    /** One step; {@code split} is its CPU by thread (the generator is the "inserter": the thread running the step). */
    private record Step(double targetRate, double actualRate, long cpuNanos, long allocatedBytes, ThreadCpu.Split split,
                        boolean allDone) {
    }

    private Step runStep(Impl impl, int[] intervals, int n) throws InterruptedException {
        List<BenchKey> keys = List.of(BenchKey.range(3)); // the same 3 keys for every request
        CountDownLatch latch = new CountDownLatch(n);
        String name = id() + "-" + impl.id();
        try (PurgatoryUnderTest purgatory = impl == Impl.FLOOR ? new NoPurgatory()
                : impl == Impl.TIMED_FLOOR ? new TimedFloor(name) : PurgatoryUnderTest.create(impl, name);
             CompletionQueue completions = new CompletionQueue()) {
            Map<Long, Long> allocated0 = Probe.allocatedBytesByThread();
            ThreadCpu threadCpu0 = new ThreadCpu();
            long cpu0 = Probe.processCpuNanos();
            long start = System.currentTimeMillis();
            long arrival = start;
            for (int i = 0; i < n; i++) {
                arrival += intervals[i];
                long now = System.currentTimeMillis();
                if (arrival > now) {
                    Thread.sleep(arrival - now);
                }
                long latencyMs = latencies[i % latencies.length];
                FakeBody body = new FakeBody(System.currentTimeMillis() + latencyMs, latch);
                Completable op = purgatory.newOperation(body, TIMEOUT_MS);
                if (latencyMs < TIMEOUT_MS) {
                    completions.add(op, body.completesAtMs);
                    purgatory.tryCompleteElseWatch(op, keys);
                } else if (!purgatory.tryCompleteElseWatch(op, keys) && impl == Impl.FLOOR) {
                    op.forceComplete(); // no purgatory: it ends now instead of at its timeout
                }
            }
            long end = System.currentTimeMillis();
            boolean allDone = latch.await(TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
            long cpu = Probe.processCpuNanos() - cpu0;
            ThreadCpu.Split split = threadCpu0.since("ExpirationReaper", CompletionQueue.THREAD_NAME);
            long allocatedBytes = Probe.allocatedBetween(allocated0, Probe.allocatedBytesByThread());
            double target = n * 1000.0 / Math.max(1, arrival - start);
            double actual = n * 1000.0 / Math.max(1, end - start);
            return new Step(target, actual, cpu, allocatedBytes, split, allDone);
        }
    }

    /**
     * Then a note on each yardstick, which has no column: the floor (the tool with no purgatory)
     * against Kafka's and ours, and the prototype (ProtoPurgatory) against Kafka's, ours and the floor.
     */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        super.runAll(sizes, options, results, log);
        Map<Impl, Double> medians = results.medians(sustained);
        Double floor = medians.get(Impl.FLOOR);
        if (floor != null) {
            StringBuilder note = new StringBuilder(title()).append(", the tool with no purgatory (the floor): ")
                    .append(Results.format(floor)).append(" req/s sustained");
            for (Impl other : List.of(Impl.KAFKA, Impl.OURS)) {
                Double rate = medians.get(other);
                if (rate != null && rate > 0) {
                    note.append(String.format(Locale.ROOT, "; %.2fx %s (%s)", floor / rate,
                            other == Impl.OURS ? "ours" : "Kafka", Results.format(rate)));
                }
            }
            results.note(note.append(" (medians). No purgatory sustains more in this tool on this machine.")
                    .toString());
        }
        for (Impl yardstick : List.of(Impl.PROTO, Impl.TIMED_FLOOR)) {
            if (medians.containsKey(yardstick)) {
                results.note(title() + ", " + yardstick.label() + ", see " + (yardstick == Impl.PROTO
                        ? "ProtoPurgatory" : "TimedFloor") + ": " + results.describe(yardstick,
                        List.of(sustained, reached, cpu, generatorCpu, allocated),
                        List.of(Impl.KAFKA, Impl.OURS, Impl.FLOOR)) + ".");
            }
        }
    }

    /** Exponential inter-arrival times in whole ms, the fractional residue carried (as the Scala tool). */
    private synchronized int[] intervals(int rate, int n) {
        return intervalsByRate.computeIfAbsent(rate, r -> {
            Random random = new Random(r);
            double lambda = r / 1000.0;
            int[] samples = new int[n];
            double residue = 0;
            for (int i = 0; i < n; i++) {
                double interval = Math.log(1 - random.nextDouble()) / -lambda + residue;
                samples[i] = (int) interval;
                residue = interval - samples[i];
            }
            return samples;
        });
    }

    /** Log-normal latencies in whole ms with mu = ln(p50), sigma = (ln(p75) - mu) / 0.674490. */
    private static long[] logNormalSamples(double pct50, double pct75) {
        Random random = new Random(7);
        double mu = Math.log(pct50);
        double sigma = (Math.log(pct75) - mu) / 0.674490;
        long[] samples = new long[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            samples[i] = (long) Math.exp(random.nextGaussian() * sigma + mu);
        }
        return samples;
    }

    /** The floor: no lists, no timer; an operation is a flag, forced by the completion thread or by the generator. */
    private static final class NoPurgatory implements PurgatoryUnderTest {

        @Override
        public Impl impl() {
            return Impl.FLOOR;
        }

        @Override
        public Completable newOperation(OpBody body, long delayMs) {
            return new FlagOperation(body);
        }

        @Override
        public boolean tryCompleteElseWatch(Completable operation, List<BenchKey> keys) {
            return false;
        }

        @Override
        public int checkAndComplete(BenchKey key) {
            return 0;
        }

        @Override
        public int watched() {
            return -1;
        }

        @Override
        public int numDelayed() {
            return -1;
        }

        @Override
        public void close() {
        }
    }

    private static final class FlagOperation extends AtomicBoolean implements Completable {
        private static final long serialVersionUID = 1L;
        private final transient OpBody body;

        FlagOperation(OpBody body) {
            this.body = body;
        }

        @Override
        public boolean forceComplete() {
            if (!compareAndSet(false, true)) {
                return false;
            }
            body.completed();
            return true;
        }

        @Override
        public boolean isCompleted() {
            return get();
        }
    }

    /** FakeOperation: completes once its latency has passed; onComplete counts down. */
    private static final class FakeBody implements OpBody {
        final long completesAtMs;
        private final CountDownLatch latch;

        FakeBody(long completesAtMs, CountDownLatch latch) {
            this.completesAtMs = completesAtMs;
            this.latch = latch;
        }

        @Override
        public boolean canComplete() {
            return System.currentTimeMillis() >= completesAtMs;
        }

        @Override
        public void completed() {
            latch.countDown();
        }
    }
}
