package io.purgatory.bench;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Workload 6: the JMH benchmarks of {@code io.purgatory.bench.jmh}, run once with {@code -prof gc}
 * (JMH's own forks and iterations, not alternating rounds); each row is JMH's mean score. JMH's
 * log goes to a file, named in the progress log, so stdout stays the table.
 */
final class JmhWorkload extends Workload {

    static final String TITLE = "6 JMH";
    private static final String PACKAGE = "io.purgatory.bench.jmh.";

    private final Map<String, Metric> metrics = new HashMap<>();

    JmhWorkload() {
        super("jmh", TITLE, List.of(Impl.OURS, Impl.KAFKA, Impl.NETTY, Impl.JDK));
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        throw new UnsupportedOperationException("JMH runs every implementation in one go");
    }

    @Override
    public void runAll(Sizes sizes, CompareOptions compareOptions, Results results, PrintStream log)
            throws IOException, RunnerException {
        if (!compareOptions.impls().isEmpty() && implIds(compareOptions).length == 0) {
            log.println("  no implementation of --impls has JMH benchmarks: skipped"); // else JMH would run them all
            return;
        }
        File jmhLog = File.createTempFile("purgatory-jmh-", ".log");
        log.printf("  JMH log: %s%n", jmhLog);
        OptionsBuilder builder = new OptionsBuilder();
        builder.include(PACKAGE.replace(".", "\\.") + ".*");
        builder.exclude("KeyedWaitsBenchmark"); // workload 7's, run there in alternating rounds
        builder.exclude("SettleBenchmark"); // issue 13 item 2: long against short lists, run alone
        builder.exclude("ObservationBenchmark"); // the cost of observing each wait, run alone
        builder.exclude("AcksBenchmark"); // workload 1 on one thread, a throughput score: run alone
        if (!compareOptions.impls().isEmpty()) { // --impls: only those, and no purgatory benchmark for timers alone
            builder.param("impl", implIds(compareOptions));
            if (compareOptions.runs(Impl.NETTY) || compareOptions.runs(Impl.JDK)) {
                builder.exclude("PurgatoryBenchmark");
            }
        }
        Options options = builder
                .forks(sizes.jmhForks())
                .warmupIterations(sizes.jmhWarmupIterations())
                .warmupTime(TimeValue.milliseconds(sizes.jmhIterationMillis()))
                .measurementIterations(sizes.jmhIterations())
                .measurementTime(TimeValue.milliseconds(sizes.jmhIterationMillis()))
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true)
                .output(jmhLog.getPath())
                .build();
        Collection<RunResult> runs = new Runner(options).run();
        for (RunResult run : runs) {
            BenchmarkParams params = run.getParams();
            String name = params.getBenchmark().substring(PACKAGE.length());
            String implParam = params.getParam("impl");
            Impl impl = implParam == null ? Impl.OURS : Impl.of(implParam);
            results.record(metric(name + " (ns/op)", Bar.NONE), impl, run.getPrimaryResult().getScore());
            Result<?> alloc = run.getSecondaryResults().get("gc.alloc.rate.norm");
            if (alloc != null && !name.endsWith(".schedule") && !name.endsWith(".cancel")) {
                results.record(metric(name + " (B/op)", allocationBar(name)), impl, alloc.getScore());
            }
        }
        results.note("JMH rows (workload 6): " + sizes.jmhForks() + " fork(s), " + sizes.jmhWarmupIterations()
                + " warm-up and " + sizes.jmhIterations() + " measured iterations of " + sizes.jmhIterationMillis()
                + " ms; B/op is gc.alloc.rate.norm. TimerBenchmark.schedule and .cancel time one side of a"
                + " batch whose other side runs in an untimed fixture, so their B/op would mix both and is not shown.");
    }

    private String[] implIds(CompareOptions options) {
        return impls().stream().filter(options::runs).map(Impl::id).toArray(String[]::new);
    }

    /** One Metric per row name, so every implementation's result lands in the same row. */
    private Metric metric(String name, Bar bar) {
        return metrics.computeIfAbsent(name, n -> new Metric(TITLE, n, bar));
    }

    /** The allocation bar: schedule + cancel of a task allocates nothing but the task. */
    private static Bar allocationBar(String name) {
        return name.equals("TimerBenchmark.scheduleCancelReused") ? Bar.below(1) : Bar.NONE;
    }
}
