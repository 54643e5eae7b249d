package io.purgatory.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The throughput workloads at several thread counts ({@code --threads}, default 1 and 2): acks
 * with n producers and n ackers, and timer churn with n threads, each count a workload of its own
 * with its rows in the table (no bars: the bars are on workloads 1 and 4 as they stand). Then a
 * note with the scaling table: each implementation's median rate at every count and its speed-up
 * over the first count. On this machine (2 cores) a count above 1 shares the cores; run it on a
 * larger machine to see where each stops scaling (docs/benchmarks.md).
 */
final class ScalingWorkload extends Workload {

    static final List<Integer> DEFAULT_THREADS = List.of(1, 2);

    ScalingWorkload() {
        super("scaling", "scaling", List.of(Impl.OURS, Impl.KAFKA, Impl.NETTY, Impl.JDK, Impl.FLOOR));
    }

    /** The workloads run for {@code threads}, in order: acks at each count, then churn at each count. */
    static List<Workload> parts(List<Integer> threads) {
        List<Workload> parts = new ArrayList<>();
        threads.forEach(n -> parts.add(AckWorkload.scaled(n)));
        threads.forEach(n -> parts.add(ChurnWorkload.scaled(n)));
        return parts;
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        throw new UnsupportedOperationException("runs its parts: see runAll");
    }

    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        List<Integer> threads = options.threads().isEmpty() ? DEFAULT_THREADS : options.threads();
        for (Workload part : parts(threads)) {
            log.printf("== %s%n", part.title());
            part.runAll(sizes, options, results, log);
        }
        StringBuilder note = new StringBuilder("Scaling (median rates; the last column is the last count's over the"
                + " first's):\n\n| Workload | Implementation |");
        threads.forEach(n -> note.append(' ').append(n).append(n == 1 ? " thread |" : " threads |"));
        note.append(" Speed-up |\n|---|---|");
        threads.forEach(n -> note.append("---:|"));
        note.append("---:|\n");
        row(note, results, "acks (completions/s)", threads, n -> AckWorkload.scaled(n).rate);
        row(note, results, "timer churn (ops/s)", threads, n -> ChurnWorkload.scaled(n).rate);
        results.note(note.toString().stripTrailing());
    }

    private static void row(StringBuilder note, Results results, String workload, List<Integer> threads,
                            IntFunction<Metric> metricAt) {
        for (Impl impl : Impl.values()) {
            List<Double> rates = new ArrayList<>();
            for (int n : threads) {
                Map<Impl, Double> medians = results.medians(metricAt.apply(n));
                rates.add(medians.getOrDefault(impl, Double.NaN));
            }
            if (rates.stream().allMatch(r -> r.isNaN())) {
                continue;
            }
            note.append("| ").append(workload).append(" | ").append(impl.id()).append(" |");
            rates.forEach(r -> note.append(' ').append(Results.format(r)).append(" |"));
            double speedUp = rates.get(rates.size() - 1) / rates.get(0);
            note.append(' ').append(Double.isFinite(speedUp) ? String.format(Locale.ROOT, "%.2fx", speedUp) : "—")
                    .append(" |\n");
        }
    }
}
