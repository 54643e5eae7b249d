package io.purgatory.examples;

import io.purgatory.PurgatoryStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The dashboard's last {@link #CAPACITY} samples, taken one a second, so that a page loaded or
 * reloaded at any time draws the last two minutes at once ({@code GET /api/history}), then asks
 * only for the samples after the last one it has. A sample holds each purgatory's pending count,
 * its rates over the interval (completed, expired, cancelled, callback errors, rejected), its p99
 * time in purgatory, its mean expiry lateness over the interval, and, for keyed waits, the rates of
 * events that found no wait (unanswered, late). Memory is bounded: a ring of
 * {@link #CAPACITY} samples. Thread-safe: {@link #sample} (the demo's sampler thread) and
 * {@link #toJson} (the HTTP threads) hold the history's monitor.
 */
final class DemoHistory {

    /* Implementation notes
     *
     * The ring holds the samples numbered max(0, taken - CAPACITY) .. taken - 1, sample `seq` at
     * ring[seq % CAPACITY]. Rates are differences of the purgatories' cumulative counters between
     * two samples, divided by the time between them: `previous` keeps the counters of the last
     * sample (zero before the first, as at the start). The lateness mean is the difference of the
     * lateness timer's total time over the difference of its count: null for an interval in which
     * nothing expired. The event rates are NaN for a purgatory that counts no events (not keyed waits).
     */

    static final int CAPACITY = 120;

    /** One purgatory's figures for one interval. Rates are per second; times in ms, NaN if none. */
    record Figures(String name, int pending, double completedPerSec, double expiredPerSec, double cancelledPerSec,
                   double callbackErrorsPerSec, double rejectedPerSec, double p99Ms, double latenessMeanMs,
                   double unansweredPerSec, double latePerSec) {
    }

    /** The figures of every purgatory at one sample, {@code uptimeMs} after the start. */
    record Sample(long seq, long uptimeMs, List<Figures> purgatories) {
    }

    /** A purgatory's cumulative counters at a sample. */
    private record Totals(long completed, long expired, long cancelled, long callbackErrors, long rejected,
                          DemoStats.Lateness lateness, double unanswered, double late) {
        static final Totals ZERO = new Totals(0, 0, 0, 0, 0, DemoStats.Lateness.NONE, 0, 0);

        static Totals of(PurgatoryStats s, DemoStats.Lateness lateness, double unanswered, double late) {
            return new Totals(s.completed() + s.completedAtOnce(), s.expired(), s.cancelled(), s.callbackErrors(),
                    s.rejected(), lateness, unanswered, late);
        }
    }

    private final DemoStats stats;
    private final long startNanos;
    private final Sample[] ring = new Sample[CAPACITY];
    private long taken;
    private long previousNanos;
    private Map<String, Totals> previous = Map.of();

    /** A history of {@code stats}'s purgatories, its time origin (uptime 0) at {@code startNanos}. */
    DemoHistory(DemoStats stats, long startNanos) {
        this.stats = stats;
        this.startNanos = startNanos;
        this.previousNanos = startNanos;
    }

    /** Takes a sample at {@code nowNanos} (System.nanoTime's time base; after the previous sample's). */
    synchronized Sample sample(long nowNanos) {
        double seconds = Math.max(1e-3, (nowNanos - previousNanos) / 1e9);
        List<Figures> figures = new ArrayList<>();
        Map<String, Totals> totals = new HashMap<>();
        for (PurgatoryStats s : stats.purgatories()) {
            Totals now = Totals.of(s, stats.lateness(s.name()), stats.events(s.name(), "purgatory.events.unanswered"),
                    stats.events(s.name(), "purgatory.events.late"));
            Totals before = previous.getOrDefault(s.name(), Totals.ZERO);
            totals.put(s.name(), now);
            long expiries = now.lateness().count() - before.lateness().count();
            figures.add(new Figures(s.name(), s.pending(),
                    (now.completed() - before.completed()) / seconds,
                    (now.expired() - before.expired()) / seconds,
                    (now.cancelled() - before.cancelled()) / seconds,
                    (now.callbackErrors() - before.callbackErrors()) / seconds,
                    (now.rejected() - before.rejected()) / seconds,
                    stats.percentileMs(s.name(), "completed", 0.99),
                    expiries <= 0 ? Double.NaN
                            : (now.lateness().totalMs() - before.lateness().totalMs()) / expiries,
                    (now.unanswered() - before.unanswered()) / seconds, (now.late() - before.late()) / seconds));
        }
        Sample sample = new Sample(taken, TimeUnit.NANOSECONDS.toMillis(nowNanos - startNanos), List.copyOf(figures));
        ring[(int) (taken % CAPACITY)] = sample;
        taken++;
        previous = totals;
        previousNanos = nowNanos;
        return sample;
    }

    /** The samples held whose {@code seq} is above {@code afterSeq}, oldest first. */
    synchronized List<Sample> samplesAfter(long afterSeq) {
        List<Sample> out = new ArrayList<>();
        for (long seq = Math.max(Math.max(0, taken - CAPACITY), afterSeq + 1); seq < taken; seq++) {
            out.add(ring[(int) (seq % CAPACITY)]);
        }
        return out;
    }

    /**
     * {@code {"capacity":120,"intervalMs":1000,"latestSeq":41,"samples":[{"seq":..,"uptimeMs":..,
     * "purgatories":[{"name":"produce","pending":..,"completedPerSec":..,...}]}]}}: the samples after
     * {@code afterSeq} (-1: all). A {@code latestSeq} below the caller's last seen means the demo restarted.
     */
    synchronized String toJson(long afterSeq) {
        Json json = new Json().beginObject().field("capacity", CAPACITY).field("intervalMs", 1000)
                .field("latestSeq", taken - 1).beginArray("samples");
        for (Sample sample : samplesAfter(afterSeq)) {
            json.beginObject().field("seq", sample.seq()).field("uptimeMs", sample.uptimeMs())
                    .beginArray("purgatories");
            for (Figures f : sample.purgatories()) {
                json.beginObject().field("name", f.name()).field("pending", f.pending())
                        .field("completedPerSec", f.completedPerSec()).field("expiredPerSec", f.expiredPerSec())
                        .field("cancelledPerSec", f.cancelledPerSec())
                        .field("callbackErrorsPerSec", f.callbackErrorsPerSec())
                        .field("rejectedPerSec", f.rejectedPerSec()).field("p99Ms", f.p99Ms())
                        .field("latenessMeanMs", f.latenessMeanMs())
                        .field("unansweredPerSec", f.unansweredPerSec()).field("latePerSec", f.latePerSec())
                        .endObject();
            }
            json.endArray().endObject();
        }
        return json.endArray().endObject().toString();
    }
}
