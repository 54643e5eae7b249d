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

    /** Call just before adding timeout i. */
    void adding(int i) {
        deadlines[i] = System.nanoTime() + delaysMs[i] * 1_000_000L;
    }

    /** Call when timeout i fires (any thread). */
    void fired(int i) {
        long now = System.nanoTime();
        if (fires.incrementAndGet(i) == 1) {
            lateness[i] = now - deadlines[i];
            distinctFired.incrementAndGet(); // publishes lateness[i] to whoever reads this count
        }
    }

    /** Waits until every timeout fired or {@code maxWaitMs} passed; returns the number fired. */
    int awaitAll(long maxWaitMs) {
        long end = System.nanoTime() + maxWaitMs * 1_000_000L;
        while (distinctFired.get() < size() && System.nanoTime() - end < 0) {
            Threads.sleepMillis(5);
        }
        return distinctFired.get();
    }

    /** Records lost, early, doubled and lateness percentiles under {@code workload}'s metrics. */
    void report(Metrics m, Results.Recorder recorder) {
        int n = size();
        long[] fired = new long[distinctFired.get()];
        int f = 0;
        int twice = 0;
        for (int i = 0; i < n; i++) {
            int count = fires.get(i);
            if (count > 0 && f < fired.length) {
                fired[f++] = lateness[i];
            }
            if (count > 1) {
                twice++;
            }
        }
        fired = Arrays.copyOf(fired, f);
        Arrays.sort(fired);
        int early = 0;
        while (early < fired.length && fired[early] < 0) {
            early++;
        }
        recorder.record(m.p50, Probe.percentile(fired, 0.50) / 1e6);
        recorder.record(m.p99, Probe.percentile(fired, 0.99) / 1e6);
        recorder.record(m.p999, Probe.percentile(fired, 0.999) / 1e6);
        recorder.record(m.max, fired.length == 0 ? Double.NaN : fired[fired.length - 1] / 1e6);
        recorder.record(m.min, fired.length == 0 ? Double.NaN : fired[0] / 1e6);
        recorder.record(m.lost, n - f);
        recorder.record(m.early, early);
        recorder.record(m.twice, twice);
    }

    /** The metrics of one expiration workload. */
    record Metrics(Metric p50, Metric p99, Metric p999, Metric max, Metric min,
                   Metric lost, Metric early, Metric twice) {

        static Metrics of(String workload, boolean withBars) {
            return new Metrics(
                    new Metric(workload, "lateness p50 (ms)"),
                    new Metric(workload, "lateness p99 (ms)", withBars ? Bar.atMost(5) : Bar.NONE),
                    new Metric(workload, "lateness p99.9 (ms)"),
                    new Metric(workload, "lateness max (ms)"),
                    new Metric(workload, "lateness min (ms; < 0 = early)"),
                    new Metric(workload, "lost", withBars ? Bar.zero() : Bar.NONE),
                    new Metric(workload, "fired early", withBars ? Bar.zero() : Bar.NONE),
                    new Metric(workload, "fired twice", withBars ? Bar.zero() : Bar.NONE));
        }
    }
}
