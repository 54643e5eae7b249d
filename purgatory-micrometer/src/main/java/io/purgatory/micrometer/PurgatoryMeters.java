package io.purgatory.micrometer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.purgatory.MetricsRecorder;
import io.purgatory.MetricsSource;
import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters of one purgatory in one registry, and its recorder: it times settled operations and
 * removes every meter it registered when the purgatory closes (see {@link MicrometerMetrics} for
 * the list). Registration is all or nothing; removal goes on past each failure. Thread-safe.
 */
final class PurgatoryMeters implements MetricsRecorder {

    /* Implementation notes

       Every call into the registry (a builder's register, a search, remove) is code this module
       does not own: it may throw anything, a StackOverflowError included.

       (M1) A registry holds the meters of at most one purgatory of each name. register() refuses
            while any meter of NAMES tagged with that name is there: a live purgatory's, or one a
            failed close left behind. Registering anyway would hand back that meter, reading a
            closed purgatory's source. The check and the registrations hold BINDING, so two
            bindings of one name cannot both pass it.
       (M2) In one registry, every purgatory's timers publish a histogram, or none does:
            Prometheus keeps one type per metric name, and a histogram next to a summary of the
            same name makes scrape() throw ClassCastException. Checked under BINDING, once this
            purgatory's first timer is registered (so a MeterFilter's histogram counts), against a
            timer of another purgatory in the registry.
       (M3) register() leaves nothing registered when it fails: whatever was thrown, it removes
            the meters registered so far and throws one IllegalStateException naming the
            purgatory and what failed (the registry's exception as the cause, failed removals
            suppressed in it).
       (M4) close() never throws (the purgatory calls it inside its own close): it tries every
            meter, going on past each failure, and logs the failures once, naming the meters that
            stay. Once they are gone, the name binds again (M1).
     */

    private static final Logger LOG = LoggerFactory.getLogger(PurgatoryMeters.class);

    /** The names of every meter registered here: what (M1) looks for. */
    static final Set<String> NAMES = Set.of("purgatory.pending", "purgatory.watched", "purgatory.keys",
            "purgatory.operations", "purgatory.expiration.lateness", "purgatory.completed.first.try",
            "purgatory.callback.errors", "purgatory.rejected", "purgatory.purges", "purgatory.expirations.refused",
            "purgatory.events.retained", "purgatory.events.retained.hits", "purgatory.events.retained.evicted",
            "purgatory.events.unanswered", "purgatory.events.late", "purgatory.tenants",
            "purgatory.tenant.rejected");

    /** Held by every binding's check and registrations (M1, M2), in any registry. */
    private static final Object BINDING = new Object();

    private final MeterRegistry registry;
    private final String name;
    @GuardedBy("this")
    private final List<Meter> meters = new ArrayList<>();
    private final Timer[] byOutcome = new Timer[Outcome.values().length];
    private Timer lateness;
    /** What register() is doing, for the message if the registry throws. Only its thread reads it. */
    private String step = "starting";
    /** The refusal register() threw, by (M1) or (M2): reported as it is, not as the registry's failure. */
    private IllegalStateException refusal;

    private PurgatoryMeters(MeterRegistry registry, String name) {
        this.registry = registry;
        this.name = name;
    }

    /**
     * Registers the meters of the purgatory {@code source} reads, all or none (M3).
     *
     * @throws IllegalStateException if the registry holds meters of a purgatory of that name (M1),
     *         or timers of the other histogram setting (M2), or throws anything
     */
    static PurgatoryMeters register(MeterRegistry registry, MetricsSource source, Duration[] buckets) {
        PurgatoryMeters m = new PurgatoryMeters(registry, source.name());
        synchronized (BINDING) {
            try {
                m.refuseMetersOfTheSameName();
                m.registerAll(source, Tags.of("purgatory", m.name), buckets);
            } catch (Throwable failure) { // (M3)
                IllegalStateException reported = failure == m.refusal ? m.refusal
                        : new IllegalStateException("purgatory '" + m.name + "': the registry ("
                                + registry.getClass().getName() + ") threw while " + m.step + ": " + failure
                                + "; no meter of it is registered", failure);
                m.removeAll((meter, removal) -> reported.addSuppressed(
                        new IllegalStateException("removing " + meter + " failed too; it stays", removal)));
                throw reported;
            }
        }
        return m;
    }

    /** (M1) */
    private void refuseMetersOfTheSameName() {
        step = "looking for meters of a purgatory named '" + name + "'";
        Collection<Meter> there = Search.in(registry).name(NAMES::contains).tag("purgatory", name).meters();
        if (!there.isEmpty()) {
            throw refuse("this registry already has meters of a purgatory named '" + name + "' ("
                    + describe(there) + "): a purgatory of that name is bound to it, or its close could not"
                    + " remove them. Give each purgatory its own name; a name binds again once its meters are gone");
        }
    }

    /** (M2), once {@code ours} is registered. */
    private void refuseTheOtherHistogramSetting(Timer ours, Duration[] buckets) {
        step = "looking for the timers of other purgatories";
        for (Timer theirs : Search.in(registry).name("purgatory.operations").timers()) {
            String other = theirs.getId().getTag("purgatory");
            if (other == null || other.equals(name)) {
                continue;
            }
            int theirBuckets = theirs.takeSnapshot().histogramCounts().length;
            int ourBuckets = ours.takeSnapshot().histogramCounts().length;
            if ((theirBuckets > 0) != (ourBuckets > 0)) {
                throw refuse("purgatory '" + name + "' would publish purgatory.operations "
                        + histogram(ourBuckets) + (buckets.length == 0 ? " (given no buckets)"
                        : " (given buckets " + List.of(buckets) + ")") + ", but purgatory '" + other
                        + "' publishes it in the same registry " + histogram(theirBuckets) + ": Prometheus cannot"
                        + " serve one metric as a histogram and as a summary (scrape() would throw). Bind every"
                        + " purgatory of one registry with buckets (MicrometerMetrics.withBuckets(...)), or every"
                        + " one without");
            }
            return; // every purgatory in the registry has the same setting (M2)
        }
    }

    private IllegalStateException refuse(String message) {
        refusal = new IllegalStateException(message);
        return refusal;
    }

    private static String histogram(int buckets) {
        return buckets == 0 ? "with no histogram" : "with a histogram of " + buckets
                + (buckets == 1 ? " bucket" : " buckets");
    }

    private void registerAll(MetricsSource s, Tags tags, Duration[] buckets) {
        gauge("purgatory.pending", "operations", "Operations watched and not yet settled", s, tags,
                MetricsSource::pending);
        gauge("purgatory.watched", "entries", "Watch entries: a pending operation counts once per key", s, tags,
                MetricsSource::watched);
        gauge("purgatory.keys", "keys", "Keys with at least one pending operation", s, tags, MetricsSource::keys);
        for (Outcome outcome : Outcome.values()) {
            Tags byOutcomeTags = tags.and("outcome", outcome.name().toLowerCase(Locale.ROOT));
            byOutcome[outcome.ordinal()] = add("purgatory.operations", byOutcomeTags, r -> Timer
                    .builder("purgatory.operations").description("Time operations spent watched, by outcome")
                    .tags(byOutcomeTags).serviceLevelObjectives(buckets).register(r));
        }
        refuseTheOtherHistogramSetting(byOutcome[0], buckets);
        lateness = add("purgatory.expiration.lateness", tags, r -> Timer.builder("purgatory.expiration.lateness")
                .description("How long after its deadline an operation expired")
                .tags(tags).serviceLevelObjectives(buckets).register(r));
        counter("purgatory.completed.first.try", "Operations completed when submitted, never watched", s, tags,
                MetricsSource::completedAtOnce);
        for (Callback callback : Callback.values()) {
            counter("purgatory.callback.errors", "Callbacks that threw", s,
                    tags.and("callback", callback.methodName()), src -> src.callbackErrors(callback));
        }
        counter("purgatory.rejected", "Submissions refused because the purgatory, or their tenant's share of it,"
                + " was full", s, tags, MetricsSource::rejected);
        if (s.hasTenants()) {
            gauge("purgatory.tenants", "tenants", "Tenants with pending operations", s, tags, MetricsSource::tenants);
            counter("purgatory.tenant.rejected", "Submissions refused because their tenant held its maximum of"
                    + " pending operations", s, tags, MetricsSource::rejectedForTenant);
        }
        counter("purgatory.purges", "Purges of watch lists run by the reaper", s, tags, MetricsSource::purges);
        counter("purgatory.expirations.refused",
                "Expirations the expiration executor refused (execute threw); they ran on the timer's thread", s,
                tags, MetricsSource::expirationsRefused);
        if (s.countsEvents()) {
            counter("purgatory.events.unanswered", "Events of keyed waits that answered no wait and were not late",
                    s, tags, MetricsSource::eventsUnanswered);
            counter("purgatory.events.late",
                    "Events of keyed waits that answered no wait, after a wait on their key timed out or was cancelled",
                    s, tags, MetricsSource::eventsLate);
        }
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

    /** Removes every meter it can (M4): never throws. */
    @Override
    public void close() {
        List<String> stayed = new ArrayList<>();
        IllegalStateException failures = new IllegalStateException("removing the meters of purgatory '" + name + "'");
        int total = removeAll((meter, failure) -> {
            stayed.add(meter);
            failures.addSuppressed(failure);
        });
        if (!stayed.isEmpty()) {
            LOG.error("Purgatory '{}': {} of its {} meters could not be removed from the registry and stay there: {}."
                    + " A purgatory of that name binds to this registry again once they are gone", name,
                    stayed.size(), total, stayed, failures);
        }
    }

    /**
     * Removes every meter registered so far, going on past each failure, which it hands to
     * {@code failed} with the meter it left. Returns how many meters there were.
     */
    private int removeAll(BiConsumer<String, Throwable> failed) {
        List<Meter> registered;
        synchronized (this) {
            registered = List.copyOf(meters);
            meters.clear();
        }
        for (Meter meter : registered) {
            try {
                registry.remove(meter);
            } catch (Throwable failure) { // (M4): the next meter is still removed
                failed.accept(describe(meter.getId().getName(), meter.getId().getTags()), failure);
            }
        }
        return registered.size();
    }

    private <M extends Meter> M add(String meterName, Tags tags, Function<MeterRegistry, M> registration) {
        step = "registering " + describe(meterName, tags);
        M meter = registration.apply(registry);
        synchronized (this) {
            meters.add(meter);
        }
        return meter;
    }

    private void gauge(String meterName, String unit, String description, MetricsSource s, Tags tags,
                       ToDoubleFunction<MetricsSource> value) {
        add(meterName, tags, r -> Gauge.builder(meterName, s, value).baseUnit(unit).description(description)
                .tags(tags).strongReference(true).register(r));
    }

    private void counter(String meterName, String description, MetricsSource s, Tags tags,
                         ToDoubleFunction<MetricsSource> value) {
        add(meterName, tags, r -> FunctionCounter.builder(meterName, s, value).description(description).tags(tags)
                .register(r));
    }

    private static String describe(Collection<Meter> meters) {
        return meters.stream().map(m -> describe(m.getId().getName(), m.getId().getTags()))
                .collect(Collectors.joining(", "));
    }

    /** {@code purgatory.operations{outcome=expired,purgatory=p}}: a meter as a query names it. */
    private static String describe(String meterName, Iterable<Tag> tags) {
        StringJoiner s = new StringJoiner(",", meterName + "{", "}");
        for (Tag tag : tags) {
            s.add(tag.getKey() + "=" + tag.getValue());
        }
        return s.toString();
    }
}
