package io.purgatory.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.purgatory.MetricsRecorder;
import io.purgatory.MetricsRecorderFactory;
import io.purgatory.MetricsSource;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Publishes purgatories' metrics to a Micrometer {@link MeterRegistry} of yours, never the global
 * one: {@code DelayedOperationPurgatory.builder("produce").metrics(MicrometerMetrics.of(registry))},
 * or {@code purgatory.bindMetrics(MicrometerMetrics.of(registry))} for one built elsewhere. Every
 * meter is tagged {@code purgatory=<name>}, and never by key:
 * <ul>
 *   <li>gauges, read in O(1): {@code purgatory.pending}, {@code purgatory.watched},
 *       {@code purgatory.keys};
 *   <li>{@code purgatory.operations}: a timer of the time operations spent watched, tagged
 *       {@code outcome=completed|expired|cancelled};
 *   <li>{@code purgatory.expiration.lateness}: a timer of how long after its deadline an operation
 *       expired;
 *   <li>counters: {@code purgatory.completed.first.try} (operations completed when submitted,
 *       never watched: add it to the completed timer's count for every completion),
 *       {@code purgatory.callback.errors} (tagged {@code callback}), {@code purgatory.rejected},
 *       {@code purgatory.purges}, {@code purgatory.expirations.refused};
 *   <li>with tenants: the gauge {@code purgatory.tenants} (tenants with pending operations) and the
 *       counter {@code purgatory.tenant.rejected} (refusals at a tenant's bound, among
 *       {@code purgatory.rejected}); never tagged by tenant, whose number has no bound: ask
 *       {@code topTenants} for the tenants themselves;
 *   <li>for {@code KeyedWaits}: the counters {@code purgatory.events.unanswered} (events that
 *       answered no wait; with early events, none within their window either) and
 *       {@code purgatory.events.late} (events that answered no wait after a wait on their key timed
 *       out or was cancelled, within {@code KeyedWaitsBuilder.lateEvents}' window);
 *   <li>for {@code KeyedWaits} that retain early events: the gauge {@code purgatory.events.retained}
 *       and the counters {@code purgatory.events.retained.hits} and
 *       {@code purgatory.events.retained.evicted}.
 * </ul>
 * Both timers publish histogram buckets (by default {@link #DEFAULT_BUCKETS}), so a plain
 * Prometheus registry serves {@code _bucket} series and {@code histogram_quantile} works with no
 * {@code MeterFilter}. In one registry, the purgatories' timers all publish a histogram or none
 * does (bucket sets may differ): Prometheus cannot scrape one metric as both a histogram and a
 * summary, so a binding of the other kind is refused. The meters leave the registry when the
 * purgatory closes; a meter the registry fails to remove is logged and the others still leave.
 * Immutable and thread-safe: one instance can bind any number of purgatories, each of its own name.
 */
public final class MicrometerMetrics implements MetricsRecorderFactory {

    /**
     * The default bucket boundaries of both timers, suited to request timeouts: 1, 5, 10, 25, 50,
     * 100, 250 and 500 ms, then 1, 2.5, 5, 10, 30 and 60 s (and +Inf).
     */
    public static final List<Duration> DEFAULT_BUCKETS = List.of(Duration.ofMillis(1), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60));

    private final MeterRegistry registry;
    private final Duration[] buckets;

    private MicrometerMetrics(MeterRegistry registry, Duration[] buckets) {
        this.registry = registry;
        this.buckets = buckets;
    }

    /**
     * Metrics published to {@code registry}, with the {@link #DEFAULT_BUCKETS}.
     *
     * @throws NullPointerException if {@code registry} is null
     */
    public static MicrometerMetrics of(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        return new MicrometerMetrics(registry, DEFAULT_BUCKETS.toArray(new Duration[0]));
    }

    /**
     * The same, with these bucket boundaries for both timers (given in any order; none: no
     * histogram, as a plain Micrometer timer).
     *
     * @throws NullPointerException if {@code buckets} or one of them is null
     * @throws IllegalArgumentException if a boundary is not positive, or two are equal
     */
    public MicrometerMetrics withBuckets(Duration... buckets) {
        Objects.requireNonNull(buckets, "buckets");
        Duration[] sorted = buckets.clone();
        for (int i = 0; i < sorted.length; i++) {
            Objects.requireNonNull(sorted[i], () -> "buckets contains null: " + Arrays.toString(buckets));
            if (sorted[i].isNegative() || sorted[i].isZero()) {
                throw new IllegalArgumentException("buckets must be positive: " + sorted[i] + " in "
                        + Arrays.toString(buckets));
            }
        }
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i].equals(sorted[i - 1])) {
                throw new IllegalArgumentException("buckets must be distinct: " + sorted[i] + " twice in "
                        + Arrays.toString(buckets));
            }
        }
        return new MicrometerMetrics(registry, sorted);
    }

    /** The registry the meters go to. */
    public MeterRegistry registry() {
        return registry;
    }

    /** The bucket boundaries of both timers, ascending; empty if they publish no histogram. */
    public List<Duration> buckets() {
        return List.of(buckets);
    }

    /**
     * Registers the meters of the purgatory {@code source} reads, all or none; called by the
     * purgatory when it is built or bound.
     *
     * @throws IllegalStateException if the registry already holds meters of a purgatory of the
     *         same name (bound, or left by a close that could not remove them), if it holds timers
     *         of another purgatory with the other histogram setting (buckets, or none), or if it
     *         throws anything while the meters are registered (its exception is the cause, and the
     *         message names the meter); no meter of this purgatory is left registered
     */
    @Override
    public MetricsRecorder create(MetricsSource source) {
        Objects.requireNonNull(source, "source");
        return PurgatoryMeters.register(registry, source, buckets);
    }

    @Override
    public String toString() {
        return "MicrometerMetrics[" + registry.getClass().getSimpleName() + ", buckets=" + Arrays.toString(buckets)
                + "]";
    }
}
