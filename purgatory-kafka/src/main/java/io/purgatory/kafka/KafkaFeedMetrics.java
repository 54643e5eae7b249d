package io.purgatory.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The meters of a {@link KafkaFeed}, on Micrometer, which this module needs only for this class:
 * bind it to your registry, and close it to remove the meters. Every meter is tagged
 * {@code feed=<name>} and {@code topic=<topic>}, never by key.
 *
 * <ul>
 *   <li>{@code purgatory.feed.events{outcome}}: records read, by outcome: {@code completed} (answered
 *       at least one wait), {@code no_waiter}, {@code skipped} (null key), {@code mapping_error}
 *       (the key or value function threw), {@code complete_error} (the waits' {@code complete}
 *       threw); their sum is the records read;</li>
 *   <li>{@code purgatory.feed.waits.answered}: waits answered by the feed's events;</li>
 *   <li>{@code purgatory.feed.consumer.errors}: errors of the consumer or of a lookup, each retried;</li>
 *   <li>{@code purgatory.feed.ready}: 1 while {@link KafkaFeed#isReady()}, else 0 (a gauge);</li>
 *   <li>{@code purgatory.feed.lag} and {@code purgatory.feed.lag.max}: records behind the end of
 *       the topic, summed and on the most behind partition (gauges); NaN while the feed cannot
 *       know them (not ready nor reading back: the broker silent, the topic missing...; or a
 *       partition joined the partitions read and no poll has measured the lag since);</li>
 *   <li>{@code purgatory.feed.lagging}: 1 while {@link KafkaFeed#isLagging()}, else 0;</li>
 *   <li>{@code purgatory.feed.partitions}: partitions read.</li>
 * </ul>
 *
 * <p>The meters read the feed's live counters: O(1), nothing is walked. Thread-safe.
 */
public final class KafkaFeedMetrics implements MeterBinder, AutoCloseable {

    private final KafkaFeed<?, ?> feed;
    @GuardedBy("this")
    private final List<Meter> meters = new ArrayList<>();
    @GuardedBy("this")
    private final List<MeterRegistry> registries = new ArrayList<>();

    /** The meters of {@code feed}, to bind to a registry. */
    public KafkaFeedMetrics(KafkaFeed<?, ?> feed) {
        this.feed = Objects.requireNonNull(feed, "feed");
    }

    /** Registers the feed's meters in {@code registry}. */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        Tags tags = Tags.of("feed", feed.name(), "topic", feed.topic());
        FeedCounters c = feed.counters();
        events(registry, tags, "completed", FeedCounters::completedCount);
        events(registry, tags, "no_waiter", FeedCounters::noWaiterCount);
        events(registry, tags, "skipped", FeedCounters::skippedCount);
        events(registry, tags, "mapping_error", FeedCounters::mappingErrorCount);
        events(registry, tags, "complete_error", FeedCounters::completeErrorCount);
        meters.add(FunctionCounter.builder("purgatory.feed.waits.answered", c, FeedCounters::waitsAnsweredCount)
                .baseUnit("waits").description("Waits answered by the feed's events").tags(tags).register(registry));
        meters.add(FunctionCounter.builder("purgatory.feed.consumer.errors", c, FeedCounters::consumerErrorCount)
                .baseUnit("errors").description("Errors of the feed's consumer or lookups, each retried").tags(tags)
                .register(registry));
        FeedHealth health = feed.health();
        meters.add(Gauge.builder("purgatory.feed.ready", feed, f -> f.isReady() ? 1 : 0)
                .description("1 while the feed reads every partition, has read back and hears the broker, else 0")
                .tags(tags).strongReference(true).register(registry));
        meters.add(Gauge.builder("purgatory.feed.lag", feed, f -> known(f.health().lagRecords(f.clockNanos())))
                .baseUnit("records").description("Records behind the end of the topic; NaN while unknown")
                .tags(tags).strongReference(true).register(registry));
        meters.add(Gauge.builder("purgatory.feed.lag.max", feed,
                        f -> known(f.health().maxPartitionLagRecords(f.clockNanos())))
                .baseUnit("records").description("Records behind on the most behind partition; NaN while unknown")
                .tags(tags).strongReference(true).register(registry));
        meters.add(Gauge.builder("purgatory.feed.partitions", health, FeedHealth::partitionCount)
                .baseUnit("partitions").description("Partitions the feed reads").tags(tags).strongReference(true)
                .register(registry));
        meters.add(Gauge.builder("purgatory.feed.lagging", feed, f -> f.isLagging() ? 1 : 0)
                .description("1 while the feed lags beyond its threshold or misses the broker, else 0")
                .tags(tags).strongReference(true).register(registry));
        registries.add(registry);
    }

    /** Removes the meters from every registry they were bound to. Idempotent. */
    @Override
    public synchronized void close() {
        for (MeterRegistry registry : registries) {
            meters.forEach(registry::remove);
        }
        meters.clear();
        registries.clear();
    }

    @GuardedBy("this")
    private void events(MeterRegistry registry, Tags tags, String outcome, ToDoubleFunction<FeedCounters> count) {
        meters.add(FunctionCounter.builder("purgatory.feed.events", feed.counters(), count).baseUnit("events")
                .description("Records read by the feed, by outcome").tags(tags.and("outcome", outcome))
                .register(registry));
    }

    private static double known(long records) {
        return records < 0 ? Double.NaN : records;
    }
}
