package io.purgatory.bench;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Workload 7, keyed waits against a map of futures: this project's {@code KeyedWaits} beside
 * {@link JdkKeyedWaits}, the plain-JDK alternative (the JDK column of its rows; ratios are ours
 * over it). Each run of one of them measures heap bytes per pending wait ({@link #bytesPerWait})
 * and, in JMH with {@code -prof gc}, ns and allocated bytes per await + complete
 * ({@code KeyedWaitsBenchmark}: 1 and 2 threads, with no other wait pending and with
 * {@code keyedPending} of them). Ours runs with its defaults (no early events) and again keeping
 * early events (memory, and JMH on 1 thread); the JDK's figures stand beside both. JMH warms each
 * fork up itself, so there is no warm-up run.
 */
final class KeyedWaitsWorkload extends Workload {

    static final String TITLE = "7 keyed waits";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String BENCHMARK = "io\\.purgatory\\.bench\\.jmh\\.KeyedWaitsBenchmark\\.";
    private static final String DEFAULTS = "";
    private static final String RETAINING = ", early events on";

    private final Results results;
    private final Map<String, Metric> metrics = new HashMap<>();
    private final Set<String> noted = new HashSet<>();
    private boolean delayerGrown;
    private boolean explained;

    /** One measured figure of one run; {@link #metric} names its row. */
    private record Sample(String what, int threads, int pending, String unit, double value) {
    }

    KeyedWaitsWorkload(Results results) {
        super("keyed", TITLE, List.of(Impl.OURS, Impl.JDK));
        this.results = results;
    }

    @Override
    boolean warmsUpItself() {
        return true;
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) throws Exception {
        boolean breakdown = recorder != Results.Recorder.DISCARD;
        if (impl == Impl.OURS) {
            record(recorder, DEFAULTS, run(KeyedWaitsUnderTest.OURS, true, sizes, breakdown, log));
            record(recorder, RETAINING, run(KeyedWaitsUnderTest.OURS_RETAIN, false, sizes, false, log));
            return;
        }
        if (!delayerGrown) {
            // orTimeout's delayer is process-wide and its queue keeps the capacity it grew to: one
            // unmeasured fill grows it, so that every round measures the same thing (its array is
            // then charged to no round: the lenient side, for the yardstick).
            bytesPerWait(KeyedWaitsUnderTest.JDK, sizes, false, log);
            delayerGrown = true;
        }
        List<Sample> jdk = run(KeyedWaitsUnderTest.JDK, true, sizes, breakdown, log);
        record(recorder, DEFAULTS, jdk);
        record(recorder, RETAINING, jdk.stream().filter(s -> s.threads() <= 1).toList());
        if (breakdown && !explained) {
            explained = true;
            results.note("Workload 7 (keyed waits): the JDK column is JdkKeyedWaits, a ConcurrentHashMap of"
                    + " CompletableFutures with orTimeout, not ScheduledThreadPoolExecutor; its ratios are ours"
                    + " over it (the median of the per-round ratios). Rows \"early events on\" are ours keeping the"
                    + " last event of each key (30 s, at most 100,000 keys) beside the same JDK figures.");
        }
    }

    /** Memory, then JMH (both thread counts, or 1 thread only), for the waits named {@code waitsId}. */
    private List<Sample> run(String waitsId, boolean bothThreadCounts, Sizes sizes, boolean breakdown,
            PrintStream log) throws IOException, RunnerException {
        List<Sample> samples = new ArrayList<>();
        samples.add(new Sample("heap bytes/pending wait", 0, 0, "", bytesPerWait(waitsId, sizes, breakdown, log)));
        Probe.settle(sizes);
        samples.addAll(jmh(waitsId, bothThreadCounts, sizes, log));
        return samples;
    }

    /**
     * {@code keyedWaits} pending waits, one on each distinct key (boxed Longs made beforehand: a
     * key is the caller's, not the waits'), timeout 60 s: heap after full GCs minus heap before,
     * over their number. The first measured run of each notes a per-class breakdown.
     */
    private double bytesPerWait(String waitsId, Sizes sizes, boolean breakdown, PrintStream log) {
        int n = sizes.keyedWaits();
        Long[] keys = new Long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (long) i;
        }
        boolean histogram = breakdown && !noted.contains(waitsId);
        try (KeyedWaitsUnderTest<Long, Long> waits = KeyedWaitsUnderTest.create(waitsId, "keyed-memory-" + waitsId)) {
            ClassHistogram h0 = histogram ? ClassHistogram.take() : null;
            long before = Probe.heapUsedAfterGc();
            for (Long key : keys) {
                CompletableFuture<Long> unused = waits.await(key, TIMEOUT);
            }
            long after = Probe.heapUsedAfterGc();
            if (histogram) {
                noted.add(waitsId);
                List<String> lines = ClassHistogram.take().perOperationSince(h0, n);
                results.note("Memory per pending wait, " + waitsId + " (live-object histogram, "
                        + String.format(Locale.ROOT, "%,d", n) + " pending on distinct keys):\n\n"
                        + String.join("\n", lines.stream().map(l -> "- " + l).toList()));
            }
            if (waits.pending() != n) {
                log.printf("    %s: %d waits pending, expected %d%n", waitsId, waits.pending(), n);
            }
            double perWait = (double) (after - before) / n;
            log.printf("    %s: %.1f bytes per pending wait%n", waitsId, perWait);
            return perWait;
        }
    }

    /** KeyedWaitsBenchmark for {@code waitsId}, with 0 and {@code keyedPending} other waits pending. */
    private static List<Sample> jmh(String waitsId, boolean bothThreadCounts, Sizes sizes, PrintStream log)
            throws IOException, RunnerException {
        File jmhLog = File.createTempFile("purgatory-keyed-jmh-", ".log");
        log.printf("    %s: JMH log %s%n", waitsId, jmhLog);
        Options options = new OptionsBuilder()
                .include(BENCHMARK + (bothThreadCounts ? ".*" : "awaitThenComplete$"))
                .param("waits", waitsId)
                .param("pending", "0", String.valueOf(sizes.keyedPending()))
                .forks(sizes.jmhForks())
                .warmupIterations(sizes.jmhWarmupIterations())
                .warmupTime(TimeValue.milliseconds(sizes.jmhIterationMillis()))
                .measurementIterations(sizes.jmhIterations())
                .measurementTime(TimeValue.milliseconds(sizes.jmhIterationMillis()))
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true)
                .output(jmhLog.getPath())
                .build();
        List<Sample> samples = new ArrayList<>();
        for (RunResult run : new Runner(options).run()) {
            BenchmarkParams params = run.getParams();
            int threads = params.getThreads();
            int pending = Integer.parseInt(params.getParam("pending"));
            double ns = run.getPrimaryResult().getScore();
            samples.add(new Sample("await+complete", threads, pending, "ns/op", ns));
            Result<?> alloc = run.getSecondaryResults().get("gc.alloc.rate.norm");
            if (alloc != null && threads == 1) {
                samples.add(new Sample("await+complete", threads, pending, "B/op", alloc.getScore()));
            }
            log.printf("    %s: %d thread(s), %,d pending: %.1f ns/op%n", waitsId, threads, pending, ns);
        }
        return samples;
    }

    private void record(Results.Recorder recorder, String variant, List<Sample> samples) {
        for (Sample s : samples) {
            recorder.record(metric(s, variant), s.value());
        }
    }

    /** The row of {@code s} for {@code variant}: the bar (no more than the JDK) on ours' defaults, bytes and time. */
    private Metric metric(Sample s, String variant) {
        String name = s.what() + variant + (s.threads() > 1 ? ", " + s.threads() + " threads" : "")
                + (s.pending() > 0 ? String.format(Locale.ROOT, ", %,d pending", s.pending()) : "")
                + (s.unit().isEmpty() ? "" : " (" + s.unit() + ")");
        boolean barred = variant.equals(DEFAULTS) && !s.unit().equals("B/op");
        return metrics.computeIfAbsent(name,
                n -> new Metric(TITLE, n, barred ? Bar.noMoreThan("JDK map") : Bar.NONE, Impl.JDK));
    }
}
