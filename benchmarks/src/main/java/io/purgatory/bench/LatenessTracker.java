package io.purgatory.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Deadlines and fire times of n timeouts. The deadline of timeout i is taken when it is added
 * ({@code System.nanoTime()} just before the add, plus its delay), so "early" is measured in
 * nanoseconds against what the caller asked for, not against an implementation's rounding.
 *
 * <p>A fire costs the firing thread little, as it is the same for every implementation and should
 * not be what limits them: the timeout's body carries its deadline, and each firing thread appends
 * (index, lateness) to a log of its own, sequentially. An earlier version wrote a per-index count
 * and lateness (two random array writes, one an atomic one) and bumped a counter shared by the
 * firing threads on every fire. The logs are merged when the figures are taken.
 */
final class LatenessTracker {

    /** The lateness a timeout may have, at least: 1 ms (the tick), whatever its delay. */
    static final double BOUND_FLOOR_MS = 1;
    /** The lateness a timeout may have, as a share of its delay: 6.25% (1/16), if above {@link #BOUND_FLOOR_MS}. */
    static final double BOUND_SHARE_OF_DELAY = 0.0625;

    /** The row of the p99.99 of lateness over delay. */
    static final String OF_DELAY_P9999 = "lateness/delay p99.99 (%)";
    /** The row of the share later than the bound; its bar, where it has one, is at most 0.01% (p99.99 within). */
    static final String OVER_BOUND = "later than max(1 ms, 6.25% of delay) (% of expiries)";

    private static final int CHUNK_BITS = 16;
    private static final int CHUNK = 1 << CHUNK_BITS;

    final long[] delaysMs;
    private final long[] deadlines;
    private final List<Log> logs = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Log> log = ThreadLocal.withInitial(this::newLog);

    /** n timeouts with delays uniform in [minMs, maxMs], from a fixed seed. */
    LatenessTracker(int n, int minMs, int maxMs) {
        SplittableRandom random = new SplittableRandom(42);
        this.delaysMs = new long[n];
        for (int i = 0; i < n; i++) {
            delaysMs[i] = (long) minMs + random.nextInt(maxMs - minMs + 1);
        }
        this.deadlines = new long[n];
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

    /** The deadline of timeout i, set by {@link #adding}: for its body to carry. */
    long deadline(int i) {
        return deadlines[i];
    }

    /** Call when timeout i, whose deadline is {@code deadline}, fires (any thread). */
    void fired(int i, long deadline) {
        log.get().append(i, System.nanoTime() - deadline);
    }

    /** The number of fires so far (a timeout fired twice counts twice). */
    int firedCount() {
        int count = 0;
        for (Log l : logs) {
            count += l.published();
        }
        return count;
    }

    private Log newLog() {
        Log l = new Log();
        logs.add(l);
        return l;
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
        while (firedCount() < n && System.nanoTime() - end < 0) {
            Threads.sleepMillis(5);
        }
        return firedCount();
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
        m.record(s, recorder);
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
        int[] fires = new int[n];
        long[] lateness = new long[n];
        for (Log l : logs) {
            l.forEach((i, late) -> {
                if (i < n && (fires[i]++ == 0 || late < lateness[i])) {
                    lateness[i] = late; // the first fire is the least late
                }
            });
        }
        long[] fired = new long[n];
        double[] ofDelay = new double[n];
        int overBound = 0;
        int f = 0;
        int all = 0;
        int early = 0;
        int twice = 0;
        for (int i = 0; i < n; i++) {
            int count = fires[i];
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
            if (inWindow) {
                double lateMs = lateness[i] / 1e6;
                if (lateMs > boundMs(delaysMs[i])) {
                    overBound++;
                }
                ofDelay[f] = lateMs / delaysMs[i];
                fired[f++] = lateness[i];
            }
        }
        fired = Arrays.copyOf(fired, f);
        Arrays.sort(fired);
        ofDelay = Arrays.copyOf(ofDelay, f);
        Arrays.sort(ofDelay);
        return new Summary(f, Probe.percentile(fired, 0.50) / 1e6, Probe.percentile(fired, 0.99) / 1e6,
                Probe.percentile(fired, 0.999) / 1e6, Probe.percentile(fired, 0.9999) / 1e6,
                f == 0 ? Double.NaN : fired[f - 1] / 1e6, f == 0 ? Double.NaN : fired[0] / 1e6,
                f == 0 ? Double.NaN : 100 * Probe.percentile(ofDelay, 0.9999), overBound, n - all, early, twice);
    }

    /** The lateness bound of a timeout of {@code delayMs}: max({@value #BOUND_FLOOR_MS} ms, 6.25% of the delay). */
    static double boundMs(long delayMs) {
        return Math.max(BOUND_FLOOR_MS, BOUND_SHARE_OF_DELAY * delayMs);
    }

    /**
     * One firing thread's fires, in order: chunks of indexes and lateness, appended by that thread
     * only; the count is published with a release store after each append, read with an acquire.
     */
    private static final class Log {
        private static final VarHandle COUNT;

        static {
            try {
                COUNT = MethodHandles.lookup().findVarHandle(Log.class, "count", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final List<int[]> indexes = new ArrayList<>();
        private final List<long[]> lateness = new ArrayList<>();
        @SuppressWarnings("unused") // through COUNT
        private int count;

        void append(int index, long late) {
            int c = count;
            int chunk = c >>> CHUNK_BITS;
            if (chunk == indexes.size()) {
                indexes.add(new int[CHUNK]);
                lateness.add(new long[CHUNK]);
            }
            indexes.get(chunk)[c & (CHUNK - 1)] = index;
            lateness.get(chunk)[c & (CHUNK - 1)] = late;
            COUNT.setRelease(this, c + 1);
        }

        int published() {
            return (int) COUNT.getAcquire(this);
        }

        /** Visits the fires published so far (once the firing thread is done: all of them). */
        void forEach(Visitor visitor) {
            int n = published();
            for (int c = 0; c < n; c++) {
                visitor.fire(indexes.get(c >>> CHUNK_BITS)[c & (CHUNK - 1)],
                        lateness.get(c >>> CHUNK_BITS)[c & (CHUNK - 1)]);
            }
        }
    }

    @FunctionalInterface
    private interface Visitor {
        void fire(int index, long lateness);
    }

    /**
     * Lateness percentiles in ms over {@code count} timeouts; the p99.99 of each one's lateness over
     * its delay, in percent; how many of them were later than their {@link #boundMs bound}; and the
     * lost, early and doubled counts.
     */
    record Summary(int count, double p50Ms, double p99Ms, double p999Ms, double p9999Ms, double maxMs, double minMs,
                   double ofDelayP9999Percent, int overBound, int lost, int early, int twice) {

        /** The share of the {@code count} timeouts later than their bound, in percent (NaN if none). */
        double overBoundPercent() {
            return count == 0 ? Double.NaN : 100.0 * overBound / count;
        }
    }

    /** The metrics of one expiration workload. */
    record Metrics(Metric p50, Metric p99, Metric p999, Metric p9999, Metric ofDelayP9999, Metric overBound,
                   Metric max, Metric min, Metric lost, Metric early, Metric twice) {

        static Metrics of(String workload, boolean withBars) {
            return of(workload, withBars ? Bar.atMost(5) : Bar.NONE, Bar.NONE, withBars);
        }

        /** With the given bars on p99 and p99.9, and "0" bars on lost, early and twice iff {@code zeroBars}. */
        static Metrics of(String workload, Bar p99, Bar p999, boolean zeroBars) {
            return new Metrics(
                    new Metric(workload, "lateness p50 (ms)"),
                    new Metric(workload, "lateness p99 (ms)", p99),
                    new Metric(workload, "lateness p99.9 (ms)", p999),
                    new Metric(workload, "lateness p99.99 (ms)"),
                    new Metric(workload, OF_DELAY_P9999),
                    new Metric(workload, OVER_BOUND),
                    new Metric(workload, "lateness max (ms)"),
                    new Metric(workload, "lateness min (ms; < 0 = early)"),
                    new Metric(workload, "lost", zeroBars ? Bar.zero() : Bar.NONE),
                    new Metric(workload, "fired early", zeroBars ? Bar.zero() : Bar.NONE),
                    new Metric(workload, "fired twice", zeroBars ? Bar.zero() : Bar.NONE));
        }

        /** Every row, in table order. */
        List<Metric> all() {
            return List.of(p50, p99, p999, p9999, ofDelayP9999, overBound, max, min, lost, early, twice);
        }

        /** Records {@code s} in these rows. */
        void record(Summary s, Results.Recorder recorder) {
            recorder.record(p50, s.p50Ms());
            recorder.record(p99, s.p99Ms());
            recorder.record(p999, s.p999Ms());
            recorder.record(p9999, s.p9999Ms());
            recorder.record(ofDelayP9999, s.ofDelayP9999Percent());
            recorder.record(overBound, s.overBoundPercent());
            recorder.record(max, s.maxMs());
            recorder.record(min, s.minMs());
            recorder.record(lost, s.lost());
            recorder.record(early, s.early());
            recorder.record(twice, s.twice());
        }
    }
}
