package io.purgatory.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The backlog of an expiration run over time: a daemon thread samples how many timeouts have
 * fired every {@value #PERIOD_MS} ms; afterwards each sample is set against how many were due by
 * then (deadline passed). Due minus fired is what the timer and its executor still owed: the
 * expiration queue, wherever it sat. Sampling starts and stops with the run; not thread-safe otherwise.
 */
final class ExpiryBacklog {

    static final int PERIOD_MS = 5;

    private final LatenessTracker tracker;
    private final long[] times;
    private final int[] fired;
    private final Thread sampler;
    private volatile boolean stop;
    private int samples;

    /** Samples {@code tracker} for at most {@code maxMillis}. */
    ExpiryBacklog(LatenessTracker tracker, long maxMillis) {
        this.tracker = tracker;
        int capacity = (int) (maxMillis / PERIOD_MS) + 1;
        this.times = new long[capacity];
        this.fired = new int[capacity];
        this.sampler = Threads.start("expiry-backlog", this::sample);
    }

    private void sample() {
        while (!stop && samples < times.length) {
            times[samples] = System.nanoTime();
            fired[samples] = tracker.firedCount();
            samples++;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MS));
        }
    }

    /** Stops sampling; then returns the largest backlog seen, with its time, for timeouts 0..n-1 added from t0. */
    Peak stop(int n, long t0) {
        stop = true;
        Threads.joinAll(sampler); // publishes the samples
        long[] deadlines = tracker.sortedDeadlines(n);
        Peak peak = new Peak(0, 0);
        for (int i = 0; i < samples; i++) {
            int due = upperBound(deadlines, times[i]);
            int backlog = due - fired[i];
            if (backlog > peak.ops()) {
                peak = new Peak(backlog, (times[i] - t0) / 1_000_000);
            }
        }
        return peak;
    }

    /** The number of {@code sorted} values at or before {@code t}, comparing by subtraction. */
    private static int upperBound(long[] sorted, long t) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] - t <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The largest backlog, {@code ops} due and not fired, at {@code atMs} after the start. */
    record Peak(int ops, long atMs) {
    }
}
