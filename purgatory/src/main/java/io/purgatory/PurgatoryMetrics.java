package io.purgatory;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A purgatory's Micrometer meters, all tagged {@code purgatory=<name>} and never by key:
 * <ul>
 *   <li>{@code purgatory.pending}, {@code purgatory.watched}, {@code purgatory.keys}: gauges, O(1);
 *   <li>{@code purgatory.operations}: a timer of the time operations spent watched, tagged
 *       {@code outcome=completed|expired|cancelled};
 *   <li>{@code purgatory.expiration.lateness}: how long after its deadline an operation expired;
 *   <li>{@code purgatory.callback.errors} (tagged {@code callback}), {@code purgatory.rejected},
 *       {@code purgatory.purges}, {@code purgatory.expirations.refused} (with the purgatory's own
 *       timer: expirations its executor refused, run on the timer's thread instead; a shared
 *       {@link PurgatoryRuntime} counts those itself): counters.
 * </ul>
 * Bind it to one registry of yours (the builder's {@code meterRegistry} does); the purgatory
 * removes its meters from that registry when it closes. Never uses the global registry.
 */
public final class PurgatoryMetrics implements MeterBinder {

    private final DelayedOperationPurgatory<?> purgatory;
    private final PurgatoryCounters counters;
    private final List<Meter> meters = new ArrayList<>();
    private volatile MeterRegistry registry;
    private volatile Timer[] byOutcome;
    private volatile Timer lateness;

    PurgatoryMetrics(DelayedOperationPurgatory<?> purgatory, PurgatoryCounters counters) {
        this.purgatory = purgatory;
        this.counters = counters;
    }

    /**
     * Registers the meters in {@code meterRegistry}.
     *
     * @throws IllegalStateException if already bound, if the purgatory is closed, or if the registry
     *         already holds the meters of a purgatory of the same name
     */
    @Override
    public synchronized void bindTo(MeterRegistry meterRegistry) {
        if (registry != null) {
            throw new IllegalStateException("metrics of purgatory '" + purgatory.name() + "' are already bound");
        }
        if (purgatory.isClosed()) {
            throw new IllegalStateException("purgatory '" + purgatory.name() + "' is closed");
        }
        if (meterRegistry.find("purgatory.pending").tag("purgatory", purgatory.name()).meter() != null) {
            throw new IllegalStateException("this registry already has the meters of a purgatory named '"
                    + purgatory.name() + "': give each purgatory its own name");
        }
        Tags tags = Tags.of("purgatory", purgatory.name());
        gauge(meterRegistry, "purgatory.pending", "operations", "Operations watched and not yet settled",
                tags, c -> PurgatoryCounters.toInt(c.pending()));
        gauge(meterRegistry, "purgatory.watched", "entries",
                "Watch entries: a pending operation counts once per key", tags,
                c -> PurgatoryCounters.toInt(c.entries()));
        gauge(meterRegistry, "purgatory.keys", "keys", "Keys with at least one pending operation",
                tags, c -> PurgatoryCounters.toInt(c.keys()));
        Timer[] timers = new Timer[Outcome.values().length];
        for (Outcome outcome : Outcome.values()) {
            timers[outcome.ordinal()] = add(Timer.builder("purgatory.operations")
                    .description("Time operations spent watched, by outcome")
                    .tags(tags).tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                    .register(meterRegistry));
        }
        Timer late = add(Timer.builder("purgatory.expiration.lateness")
                .description("How long after its deadline an operation expired")
                .tags(tags).register(meterRegistry));
        for (OperationErrorHandler.Callback callback : OperationErrorHandler.Callback.values()) {
            counter(meterRegistry, "purgatory.callback.errors", "Callbacks that threw",
                    tags.and("callback", callback.methodName()), c -> c.callbackErrors(callback));
        }
        counter(meterRegistry, "purgatory.rejected", "Submissions refused because the purgatory was full",
                tags, PurgatoryCounters::rejectedCount);
        counter(meterRegistry, "purgatory.purges", "Purges of watch lists run by the reaper", tags,
                PurgatoryCounters::purgeCount);
        counter(meterRegistry, "purgatory.expirations.refused",
                "Expirations the expiration executor refused (execute threw); they ran on the timer's thread", tags,
                PurgatoryCounters::expirationsRefusedCount);
        this.lateness = late;
        this.byOutcome = timers;
        this.registry = meterRegistry;
    }

    /** True once bound: the hot path then records durations. */
    boolean isBound() {
        return byOutcome != null;
    }

    void recordSettled(Outcome outcome, long watchedNanos) {
        Timer[] timers = byOutcome;
        if (timers != null) {
            timers[outcome.ordinal()].record(watchedNanos, TimeUnit.NANOSECONDS);
        }
    }

    void recordLateness(long latenessNanos) {
        Timer late = lateness;
        if (late != null) {
            late.record(Math.max(0, latenessNanos), TimeUnit.NANOSECONDS);
        }
    }

    /** Removes every meter from the registry; idempotent. */
    synchronized void remove() {
        MeterRegistry r = registry;
        if (r == null) {
            return;
        }
        byOutcome = null;
        lateness = null;
        for (Meter meter : meters) {
            r.remove(meter);
        }
        meters.clear();
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    private void gauge(MeterRegistry r, String name, String unit, String description, Tags tags,
                       ToDoubleFunction<PurgatoryCounters> value) {
        add(Gauge.builder(name, counters, value).baseUnit(unit).description(description)
                .tags(tags).strongReference(true).register(r));
    }

    private void counter(MeterRegistry r, String name, String description, Tags tags,
                         ToDoubleFunction<PurgatoryCounters> value) {
        add(FunctionCounter.builder(name, counters, value).description(description)
                .tags(tags).register(r));
    }
}
