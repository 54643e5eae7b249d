package io.purgatory.bench;

import java.util.Map;
import java.util.function.DoublePredicate;
import java.util.function.Predicate;

/**
 * A target from the issue for one metric, checked on the medians of a run, or, for a target
 * relative to Kafka (or to the row's {@link Metric#versus}), on the ratio of ours to it in the run
 * (the median of the per-round ratios).
 *
 * @param text  how the table states it
 * @param check true iff the medians meet it; null when there is no target or it is relative
 * @param ratioCheck true iff the ratio of ours to the row's versus meets it; null unless the target is relative
 */
record Bar(String text, Predicate<Map<Impl, Double>> check, DoublePredicate ratioCheck) {

    static final Bar NONE = new Bar("", null, null);

    static Bar atLeastTimesKafka(double factor) {
        return new Bar(">= " + fmt(factor) + "x Kafka", null, r -> r >= factor);
    }

    static Bar atMostFractionOfKafka(double fraction) {
        return new Bar("<= " + fmt(fraction) + "x Kafka", null, r -> r <= fraction);
    }

    /** Ours no higher than the row's {@link Metric#versus} implementation, {@code who}: a ratio of at most 1. */
    static Bar noMoreThan(String who) {
        return new Bar("<= " + who, null, r -> r <= 1);
    }

    static Bar atLeast(double limit) {
        return new Bar(">= " + Results.format(limit), m -> ours(m) >= limit, null);
    }

    /** Both bars: met iff each is (one checked on the medians, the other on the ratio). */
    static Bar both(Bar onMedians, Bar onRatio) {
        return new Bar(onMedians.text + " and " + onRatio.text, onMedians.check, onRatio.ratioCheck);
    }

    static Bar atMost(double limit) {
        return new Bar("<= " + fmt(limit), m -> ours(m) <= limit, null);
    }

    static Bar below(double limit) {
        return new Bar("< " + fmt(limit), m -> ours(m) < limit, null);
    }

    static Bar zero() {
        return new Bar("0", m -> ours(m) == 0, null);
    }

    /** Ours ahead of every other implementation measured. */
    static Bar aheadOfAll(boolean higherIsBetter) {
        return new Bar(higherIsBetter ? "> all others" : "< all others", m -> m.entrySet().stream()
                .filter(e -> e.getKey() != Impl.OURS)
                .allMatch(e -> higherIsBetter ? ours(m) > e.getValue() : ours(m) < e.getValue()), null);
    }

    /** "yes", "no", or "" when there is no target or a value is missing. */
    String verdict(Map<Impl, Double> medians, double ratio) {
        if (ratioCheck != null && check != null) {
            String onMedians = new Bar(text, check, null).verdict(medians, ratio);
            String onRatio = new Bar(text, null, ratioCheck).verdict(medians, ratio);
            return onMedians.isEmpty() || onRatio.isEmpty() ? ""
                    : onMedians.equals("yes") && onRatio.equals("yes") ? "yes" : "no";
        }
        if (ratioCheck != null) {
            return Double.isNaN(ratio) ? "" : ratioCheck.test(ratio) ? "yes" : "no";
        }
        if (check == null || !medians.containsKey(Impl.OURS)
                || medians.values().stream().anyMatch(v -> v.isNaN())) {
            return "";
        }
        try {
            return check.test(medians) ? "yes" : "no";
        } catch (NullPointerException missing) { // a baseline was not run (--only, or an impl failed)
            return "";
        }
    }

    private static double ours(Map<Impl, Double> m) {
        return m.get(Impl.OURS);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
