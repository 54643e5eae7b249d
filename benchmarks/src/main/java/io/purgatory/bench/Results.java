package io.purgatory.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The samples of a comparison run, by metric and implementation, rendered as a markdown table of medians. */
public final class Results {

    private static final Impl[] COLUMNS = {Impl.OURS, Impl.KAFKA, Impl.NETTY, Impl.JDK};

    private final Map<Metric, Map<Impl, List<Double>>> samples = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    /** Where a workload run puts its measurements. */
    @FunctionalInterface
    interface Recorder {
        void record(Metric metric, double value);

        /** Discards everything (warm-up runs). */
        Recorder DISCARD = (metric, value) -> { };
    }

    synchronized void record(Metric metric, Impl impl, double value) {
        samples.computeIfAbsent(metric, m -> new EnumMap<>(Impl.class))
                .computeIfAbsent(impl, i -> new ArrayList<>()).add(value);
    }

    Recorder recorder(Impl impl) {
        return (metric, value) -> record(metric, impl, value);
    }

    /** Adds a markdown paragraph printed after the table. */
    synchronized void note(String markdown) {
        notes.add(markdown);
    }

    synchronized Map<Impl, Double> medians(Metric metric) {
        Map<Impl, Double> medians = new EnumMap<>(Impl.class);
        samples.getOrDefault(metric, Map.of()).forEach((impl, values) -> medians.put(impl, Probe.median(values)));
        return medians;
    }

    /** The workload titles that produced at least one row, in order. */
    synchronized List<String> workloads() {
        return samples.keySet().stream().map(Metric::workload).distinct().toList();
    }

    /**
     * The ratio of ours to the row's {@link Metric#versus} (Kafka unless said otherwise): the
     * median of the per-round ratios when both have a sample from every round (rounds alternate A,
     * B, so round i of each ran side by side), else the ratio of the medians; NaN if either is
     * missing. Pairing keeps a stretch of a slow machine (this one runs at about half speed for
     * tens of seconds at a time) out of the ratio.
     */
    synchronized double ratio(Metric metric) {
        return ratio(metric, Impl.OURS, metric.versus());
    }

    /** As {@link #ratio(Metric)}, for {@code a} over {@code b}. */
    synchronized double ratio(Metric metric, Impl a, Impl b) {
        Map<Impl, List<Double>> byImpl = samples.getOrDefault(metric, Map.of());
        List<Double> as = byImpl.get(a);
        List<Double> bs = byImpl.get(b);
        if (as == null || bs == null || as.isEmpty() || bs.isEmpty()) {
            return Double.NaN;
        }
        if (as.size() != bs.size()) {
            double r = Probe.median(as) / Probe.median(bs);
            return Double.isFinite(r) ? r : Double.NaN;
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < as.size(); i++) {
            double r = as.get(i) / bs.get(i);
            if (Double.isFinite(r)) {
                ratios.add(r);
            }
        }
        return ratios.isEmpty() ? Double.NaN : Probe.median(ratios);
    }

    /**
     * The table: one row per metric, medians per implementation, the ratio ours/Kafka and the bar.
     * A row compared with another implementation than Kafka says so in its ratio cell ("0.80 vs JDK").
     */
    synchronized String markdownTable() {
        StringBuilder sb = new StringBuilder();
        sb.append("| Workload | Metric | Ours | Kafka | Ours/Kafka | Netty | JDK | Bar | Met |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---|---|\n");
        for (Metric metric : samples.keySet()) {
            Map<Impl, Double> m = medians(metric);
            sb.append("| ").append(metric.workload()).append(" | ").append(metric.name());
            for (Impl impl : COLUMNS) {
                sb.append(" | ").append(format(m.getOrDefault(impl, Double.NaN)));
                if (impl == Impl.KAFKA) {
                    double ratio = ratio(metric);
                    sb.append(" | ").append(formatRatio(ratio));
                    if (metric.versus() != Impl.KAFKA && Double.isFinite(ratio)) {
                        sb.append(" vs ").append(metric.versus() == Impl.JDK ? "JDK" : metric.versus().id());
                    }
                }
            }
            sb.append(" | ").append(metric.bar().text()).append(" | ")
                    .append(metric.bar().verdict(m, ratio(metric))).append(" |\n");
        }
        return sb.toString();
    }

    /**
     * A yardstick's figures for a note: each metric's median, with its ratios to each of
     * {@code others} (medians of the per-round ratios), e.g. {@code completions/s 2,100,000 (2.80x
     * Kafka, 1.90x ours)}.
     */
    synchronized String describe(Impl yardstick, List<Metric> metrics, List<Impl> others) {
        StringBuilder sb = new StringBuilder();
        for (Metric metric : metrics) {
            Double median = medians(metric).get(yardstick);
            if (median == null) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(metric.name()).append(' ').append(format(median));
            StringBuilder ratios = new StringBuilder();
            for (Impl other : others) {
                double ratio = ratio(metric, yardstick, other);
                if (Double.isFinite(ratio)) {
                    ratios.append(ratios.length() == 0 ? " (" : ", ").append(formatRatio(ratio)).append("x ")
                            .append(other == Impl.KAFKA ? "Kafka" : other.id());
                }
            }
            sb.append(ratios.length() == 0 ? "" : ratios.append(')'));
        }
        return sb.append(" (medians; ratios are medians of the per-round ratios)").toString();
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    private static String formatRatio(double ratio) {
        return Double.isNaN(ratio) || Double.isInfinite(ratio) ? "—" : String.format(Locale.ROOT, "%.2f", ratio);
    }

    /** Compact, locale-independent: grouping for large values, a few significant digits for small ones. */
    static String format(double v) {
        if (Double.isNaN(v)) {
            return "—";
        }
        double a = Math.abs(v);
        if (v == Math.rint(v) && a < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 0.1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
