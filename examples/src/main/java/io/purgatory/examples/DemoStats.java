package io.purgatory.examples;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.purgatory.PurgatoryStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/** The demo's request counters and its JSON view of the purgatories ({@code /api/stats}). */
final class DemoStats {

    final LongAdder produceRequests = new LongAdder();
    final LongAdder fetchRequests = new LongAdder();
    final LongAdder orders = new LongAdder();
    private final long startNanos = System.nanoTime();
    private final MeterRegistry registry;
    private final ReplicaManager replicaManager;
    private final List<Supplier<PurgatoryStats>> purgatories;

    /** {@code purgatories}: the stats of each purgatory shown (a purgatory's or keyed waits' {@code stats}). */
    DemoStats(MeterRegistry registry, ReplicaManager replicaManager, List<Supplier<PurgatoryStats>> purgatories) {
        this.registry = registry;
        this.replicaManager = replicaManager;
        this.purgatories = List.copyOf(purgatories);
    }

    /**
     * The filter that gives the {@code purgatory.operations} timers of a registry the p50 and p99
     * this class reads: computed in process, to two significant digits.
     */
    static MeterFilter percentiles() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals("purgatory.operations")) {
                    return config;
                }
                return DistributionStatisticConfig.builder().percentiles(0.5, 0.99).percentilePrecision(2).build()
                        .merge(config);
            }
        };
    }

    /** A snapshot of each purgatory's counters, in the order given. */
    List<PurgatoryStats> purgatories() {
        List<PurgatoryStats> out = new ArrayList<>(purgatories.size());
        for (Supplier<PurgatoryStats> p : purgatories) {
            out.add(p.get());
        }
        return out;
    }

    /**
     * The given percentile (0..1) of time in purgatory for {@code outcome}, in ms; NaN if unknown.
     * Never above the max of the same snapshot: the histogram reports a percentile as a value of the
     * bucket it falls in, which can lie past the largest value recorded.
     */
    double percentileMs(String purgatory, String outcome, double percentile) {
        Timer timer = registry.find("purgatory.operations").tags("purgatory", purgatory, "outcome", outcome).timer();
        if (timer == null) {
            return Double.NaN;
        }
        HistogramSnapshot snapshot = timer.takeSnapshot();
        for (ValueAtPercentile v : snapshot.percentileValues()) {
            if (Math.abs(v.percentile() - percentile) < 1e-9) {
                return Math.min(v.value(TimeUnit.MILLISECONDS), snapshot.max(TimeUnit.MILLISECONDS));
            }
        }
        return Double.NaN;
    }

    double maxMs(String purgatory, String outcome) {
        Timer timer = registry.find("purgatory.operations").tags("purgatory", purgatory, "outcome", outcome).timer();
        return timer == null ? Double.NaN : timer.max(TimeUnit.MILLISECONDS);
    }

    /**
     * The count of a keyed waits' counter of events that found no wait ({@code purgatory.events.unanswered}
     * or {@code purgatory.events.late}) so far; NaN for a purgatory that has none (not keyed waits).
     */
    double events(String purgatory, String counter) {
        FunctionCounter c = registry.find(counter).tags("purgatory", purgatory).functionCounter();
        return c == null ? Double.NaN : c.count();
    }

    /** How late after their deadlines a purgatory's operations expired, in total so far. */
    record Lateness(long count, double totalMs, double maxMs) {
        static final Lateness NONE = new Lateness(0, 0, Double.NaN);
    }

    /** The purgatory's {@code purgatory.expiration.lateness} timer, read; {@link Lateness#NONE} if it has none. */
    Lateness lateness(String purgatory) {
        Timer timer = registry.find("purgatory.expiration.lateness").tags("purgatory", purgatory).timer();
        return timer == null ? Lateness.NONE : new Lateness(timer.count(), timer.totalTime(TimeUnit.MILLISECONDS),
                timer.max(TimeUnit.MILLISECONDS));
    }

    String toJson() {
        Json json = new Json().beginObject()
                .field("uptimeMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos))
                .field("produceRequests", produceRequests.sum())
                .field("fetchRequests", fetchRequests.sum())
                .field("orders", orders.sum())
                .beginArray("purgatories");
        for (PurgatoryStats s : purgatories()) {
            json.beginObject()
                    .field("name", s.name())
                    .field("pending", s.pending())
                    .field("watched", s.watched())
                    .field("keys", s.keys())
                    .field("completed", s.completed() + s.completedAtOnce())
                    .field("expired", s.expired())
                    .field("cancelled", s.cancelled())
                    .field("callbackErrors", s.callbackErrors())
                    .field("rejected", s.rejected())
                    .field("p99Ms", percentileMs(s.name(), "completed", 0.99))
                    .field("latenessMaxMs", lateness(s.name()).maxMs())
                    .endObject();
        }
        json.endArray().beginArray("partitions");
        for (TopicPartition tp : replicaManager.partitions()) {
            Partition p = replicaManager.partition(tp);
            json.beginObject()
                    .field("partition", tp.toString())
                    .field("leader", p.leader())
                    .field("highWatermark", p.highWatermark())
                    .field("logEndOffset", p.logEndOffset())
                    .beginArray("isr");
            for (int replica : new java.util.TreeSet<>(p.inSyncReplicas())) {
                json.value(replica);
            }
            json.endArray().endObject();
        }
        return json.endArray().endObject().toString();
    }
}
