package io.purgatory.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.purgatory.MetricsRecorder;
import io.purgatory.MetricsSource;
import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The meters of one purgatory in one registry, and its recorder: it times settled operations and
 * removes every meter it registered when the purgatory closes (see {@link MicrometerMetrics} for
 * the list).
 */
final class PurgatoryMeters implements MetricsRecorder {

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Timer[] byOutcome = new Timer[Outcome.values().length];
    private Timer lateness;

    private PurgatoryMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    static PurgatoryMeters register(MeterRegistry registry, MetricsSource source, Duration[] buckets) {
        String name = source.name();
        if (registry.find("purgatory.pending").tag("purgatory", name).meter() != null) {
            throw new IllegalStateException("this registry already has the meters of a purgatory named '" + name
                    + "': give each purgatory its own name");
        }
        PurgatoryMeters m = new PurgatoryMeters(registry);
        try {
            m.registerAll(source, Tags.of("purgatory", name), buckets);
        } catch (RuntimeException | Error failure) {
            m.close(); // nothing half-registered stays
            throw failure;
        }
        return m;
    }

    private void registerAll(MetricsSource s, Tags tags, Duration[] buckets) {
        gauge("purgatory.pending", "operations", "Operations watched and not yet settled", s, tags,
                MetricsSource::pending);
        gauge("purgatory.watched", "entries", "Watch entries: a pending operation counts once per key", s, tags,
                MetricsSource::watched);
        gauge("purgatory.keys", "keys", "Keys with at least one pending operation", s, tags, MetricsSource::keys);
        for (Outcome outcome : Outcome.values()) {
            byOutcome[outcome.ordinal()] = add(Timer.builder("purgatory.operations")
                    .description("Time operations spent watched, by outcome")
                    .tags(tags).tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .serviceLevelObjectives(buckets).register(registry));
        }
        lateness = add(Timer.builder("purgatory.expiration.lateness")
                .description("How long after its deadline an operation expired")
                .tags(tags).serviceLevelObjectives(buckets).register(registry));
        counter("purgatory.completed.first.try", "Operations completed when submitted, never watched", s, tags,
                MetricsSource::completedAtOnce);
        for (Callback callback : Callback.values()) {
            counter("purgatory.callback.errors", "Callbacks that threw", s,
                    tags.and("callback", callback.methodName()), src -> src.callbackErrors(callback));
        }
        counter("purgatory.rejected", "Submissions refused because the purgatory was full", s, tags,
                MetricsSource::rejected);
        counter("purgatory.purges", "Purges of watch lists run by the reaper", s, tags, MetricsSource::purges);
        counter("purgatory.expirations.refused",
                "Expirations the expiration executor refused (execute threw); they ran on the timer's thread", s,
                tags, MetricsSource::expirationsRefused);
        if (s.retainsEvents()) {
            gauge("purgatory.events.retained", "events", "Early events kept for waits registered after them", s,
                    tags, MetricsSource::eventsRetained);
            counter("purgatory.events.retained.hits", "Waits answered at registration by a retained event", s, tags,
                    MetricsSource::eventsRetainedHits);
            counter("purgatory.events.retained.evicted",
                    "Retained events dropped before their window ended, for capacity", s, tags,
                    MetricsSource::eventsEvicted);
        }
    }

    @Override
    public void recordSettled(Outcome outcome, long watchedNanos) {
        byOutcome[outcome.ordinal()].record(watchedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void recordLateness(long latenessNanos) {
        lateness.record(latenessNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void close() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
        meters.clear();
    }

    private synchronized <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    private void gauge(String name, String unit, String description, MetricsSource s, Tags tags,
                       ToDoubleFunction<MetricsSource> value) {
        add(Gauge.builder(name, s, value).baseUnit(unit).description(description).tags(tags)
                .strongReference(true).register(registry));
    }

    private void counter(String name, String description, MetricsSource s, Tags tags,
                         ToDoubleFunction<MetricsSource> value) {
        add(FunctionCounter.builder(name, s, value).description(description).tags(tags).register(registry));
    }
}
