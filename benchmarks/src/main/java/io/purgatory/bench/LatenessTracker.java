package io.purgatory.bench;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Deadlines and fire times of n timeouts. The deadline of timeout i is taken when it is added
 * ({@code System.nanoTime()} just before the add, plus its delay), so "early" is measured in
 * nanoseconds against what the caller asked for, not against an implementation's rounding.
 */
final class LatenessTracker {

    final long[] delaysMs;
    private final long[] deadlines;
    private final long[] lateness;
    private final AtomicIntegerArray fires;
    private final AtomicInteger distinctFired = new AtomicInteger();

    /** n timeouts with delays uniform in [minMs, maxMs], from a fixed seed. */
    LatenessTracker(int n, int minMs, int maxMs) {
        SplittableRandom random = new SplittableRandom(42);
        this.delaysMs = new long[n];
        for (int i = 0; i < n; i++) {
            delaysMs[i] = (long) minMs + random.nextInt(maxMs - minMs + 1);
        }
        this.deadlines = new long[n];
        this.lateness = new long[n];
        this.fires = new AtomicIntegerArray(n);
    }

    int size() {
        return delaysMs.length;
    }

    /** Call just before adding timeout i; returns the time read ({@code System.nanoTime()}). */
    long adding(int i) {
        long now = System.nanoTime();
        deadlines[i] = now + delaysMs[i] * 1_000_000L;
        return now;
    }

    /** Call when timeout i fires (any thread). */
    void fired(int i) {
        long now = System.nanoTime();
        if (fires.incrementAndGet(i) == 1) {
            lateness[i] = now - deadlines[i];
            distinctFired.incrementAndGet(); // publishes lateness[i] to whoever reads this count
        }
    }

    /** The number of timeouts that fired at least once so far. */
    int firedCount() {
        return distinctFired.get();
    }

    /** The deadlines of timeouts 0..n-1, sorted (by value: they lie within one run, far from overflow). */
    long[] sortedDeadlines(int n) {
        long[] sorted = Arrays.copyOf(deadlines, n);
        Arrays.sort(sorted);
        return sorted;
    }

    /** Waits until every timeout fired or {@code maxWaitMs} passed; returns the number fired. */
    int awaitAll(long maxWaitMs) {
        return awaitFirst(size(), maxWaitMs);
    }

    /** Waits until timeouts 0..n-1 fired (when only those were added) or {@code maxWaitMs} passed. */
    int awaitFirst(int n, long maxWaitMs) {
        long end = System.nanoTime() + maxWaitMs * 1_000_000L;
        while (distinctFired.get() < n && System.nanoTime() - end < 0) {
            Threads.sleepMillis(5);
        }
        return distinctFired.get();
    }

    /** Records lost, early, doubled and lateness percentiles under {@code workload}'s metrics. */
    void report(Metrics m, Results.Recorder recorder) {
        report(m, recorder, size(), 0, false);
    }

    /**
     * As {@link #report(Metrics, Results.Recorder)} when only timeouts 0..n-1 were added, with the
     * lateness percentiles over those whose deadline is at or before {@code untilNanos}; lost, early
     * and twice count all n. Returns the number in the percentiles.
     */
    int reportDueBy(Metrics m, Results.Recorder recorder, int n, long untilNanos) {
        return report(m, recorder, n, untilNanos, true);
    }

    private int report(Metrics m, Results.Recorder recorder, int n, long untilNanos, boolean dueByOnly) {
        Summary s = dueByOnly ? summarize(n, Long.MIN_VALUE, untilNanos) : summarize(n);
        recorder.record(m.p50, s.p50Ms());
        recorder.record(m.p99, s.p99Ms());
        recorder.record(m.p999, s.p999Ms());
        recorder.record(m.max, s.maxMs());
        recorder.record(m.min, s.minMs());
        recorder.record(m.lost, s.lost());
        recorder.record(m.early, s.early());
        recorder.record(m.twice, s.twice());
        return s.count();
    }

    /** The lateness of timeouts 0..n-1, and the lost, early and doubled counts. */
    Summary summarize(int n) {
        return summarize(n, Long.MIN_VALUE, Long.MAX_VALUE, false);
    }

    /**
     * The lateness of the timeouts among 0..n-1 whose deadline is after {@code fromNanos} (or any,
     * for Long.MIN_VALUE) and at or before {@code untilNanos}, and the lost, early and doubled
     * counts over all n.
     */
    Summary summarize(int n, long fromNanos, long untilNanos) {
        return summarize(n, fromNanos, untilNanos, true);
    }

    private Summary summarize(int n, long fromNanos, long untilNanos, boolean windowed) {
        long[] fired = new long[Math.min(n, distinctFired.get())];
        int f = 0;
        int all = 0;
        int early = 0;
        int twice = 0;
        for (int i = 0; i < n; i++) {
            int count = fires.get(i);
            if (count == 0) {
                continue;
            }
            all++;
            if (lateness[i] < 0) {
                early++;
            }
            if (count > 1) {
                twice++;
            }
            boolean inWindow = !windowed || (deadlines[i] - untilNanos <= 0
                    && (fromNanos == Long.MIN_VALUE || deadlines[i] - fromNanos > 0));
            if (f < fired.length && inWindow) {
                fired[f++] = lateness[i];
            }
        }
        fired = Arrays.copyOf(fired, f);
        Arrays.sort(fired);
        return new Summary(f, Probe.percentile(fired, 0.50) / 1e6, Probe.percentile(fired, 0.99) / 1e6,
                Probe.percentile(fired, 0.999) / 1e6, f == 0 ? Double.NaN : fired[f - 1] / 1e6,
                f == 0 ? Double.NaN : fired[0] / 1e6, n - all, early, twice);
    }

    /** Lateness percentiles in ms over {@code count} timeouts, and the lost, early and doubled counts. */
    record Summary(int count, double p50Ms, double p99Ms, double p999Ms, double maxMs, double minMs,
                   int lost, int early, int twice) {
    }

    /** The metrics of one expiration workload. */
    record Metrics(Metric p50, Metric p99, Metric p999, Metric max, Metric min,
                   Metric lost, Metric early, Metric twice) {

        static Metrics of(String workload, boolean withBars) {
            return of(workload, withBars ? Bar.atMost(5) : Bar.NONE, Bar.NONE, withBars);
        }

        /** With the given bars on p99 and p99.9, and "0" bars on lost, early and twice iff {@code zeroBars}. */
        static Metrics of(String workload, Bar p99, Bar p999, boolean zeroBars) {
            return new Metrics(
                    new Metric(workload, "lateness p50 (ms)"),
                    new Metric(workload, "lateness p99 (ms)", p99),
                    new Metric(workload, "lateness p99.9 (ms)", p999),
                    new Metric(workload, "lateness max (ms)"),
                    new Metric(workload, "lateness min (ms; < 0 = early)"),
                    new Metric(workload, "lost", zeroBars ? Bar.zero() : Bar.NONE),
                    new Metric(workload, "fired early", zeroBars ? Bar.zero() : Bar.NONE),
                    new Metric(workload, "fired twice", zeroBars ? Bar.zero() : Bar.NONE));
        }
    }
}
