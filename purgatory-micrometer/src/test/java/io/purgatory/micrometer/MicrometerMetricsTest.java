package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryBuilder;
import io.purgatory.PurgatoryFullException;
import io.purgatory.TenantFullException;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Micrometer meters: names, tags, values on the manual clock, buckets, removal on close. */
class MicrometerMetricsTest {

    private static final Set<String> ALLOWED_TAGS = Set.of("purgatory", "outcome", "callback");

    private final ManualTimer timer = new ManualTimer();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DelayedOperationPurgatory<Op> purgatory = builder("metered").build();

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
        registry.close();
    }

    @Test
    void meters_everyMeter_isNamedAsDocumentedAndTaggedOnlyByPurgatoryOutcomeOrCallback() {
        // A registry may add meters of its own for a timer's buckets (SimpleMeterRegistry's "*.histogram"
        // gauges, tagged le): they are the timers', and leave with them.
        List<Meter> meters = registry.getMeters().stream().filter(m -> m.getId().syntheticAssociation() == null)
                .toList();

        assertThat(meters.stream().map(m -> m.getId().getName()).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder("purgatory.pending", "purgatory.watched", "purgatory.keys",
                        "purgatory.operations", "purgatory.expiration.lateness", "purgatory.completed.first.try",
                        "purgatory.callback.errors", "purgatory.rejected", "purgatory.purges",
                        "purgatory.expirations.refused");
        assertThat(meters).hasSize(3 + 3 + 1 + 1 + 4 + 3);
        assertThat(meters).allSatisfy(m -> {
            assertThat(m.getId().getTags()).extracting(Tag::getKey).isSubsetOf(ALLOWED_TAGS);
            assertThat(m.getId().getTag("purgatory")).isEqualTo("metered");
        });
        assertThat(meters.stream().filter(m -> m.getId().getName().equals("purgatory.operations"))
                .map(m -> m.getId().getTag("outcome")))
                .containsExactlyInAnyOrder("completed", "expired", "cancelled");
        assertThat(meters.stream().filter(m -> m.getId().getName().equals("purgatory.callback.errors"))
                .map(m -> m.getId().getTag("callback")))
                .containsExactlyInAnyOrder("tryComplete", "onComplete", "onExpiration", "onCancel");
    }

    @Test
    void timersAndCounters_operationsSettleEveryWay_recordOnTheManualClock() {
        Op completed = new Op(1_000);
        Op cancelled = new Op(1_000);
        Op atOnce = new Op(1_000);
        atOnce.ready = true;
        purgatory.tryCompleteElseWatch(completed, List.of("a", "b"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("b"));
        purgatory.tryCompleteElseWatch(atOnce, List.of("c"));
        purgatory.tryCompleteElseWatch(new Op(100), List.of("d"));
        assertGauges(3, 4, 3);

        timer.advanceClock(30);
        completed.ready = true;
        purgatory.checkAndComplete("a");
        timer.advanceClock(20);
        purgatory.cancelForKey("b");
        timer.advanceClock(50); // d expires at 100, on time (the wheel is exact on the manual clock)

        assertThat(operations("completed").count()).isEqualTo(1);
        assertThat(operations("completed").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(30.0);
        assertThat(operations("cancelled").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(50.0);
        assertThat(operations("expired").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(100.0);
        Timer lateness = registry.get("purgatory.expiration.lateness").tag("purgatory", "metered").timer();
        assertThat(lateness.count()).isEqualTo(1);
        assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isZero();
        assertThat(registry.get("purgatory.completed.first.try").tag("purgatory", "metered").functionCounter().count())
                .as("the completion that was never watched is counted, not timed").isEqualTo(1.0);
        assertGauges(0, 0, 0);
    }

    @Test
    void timers_byDefault_publishTheDefaultBuckets() {
        purgatory.tryCompleteElseWatch(new Op(1_000), List.of("k"));
        timer.advanceClock(1_000);

        CountAtBucket[] buckets = operations("expired").takeSnapshot().histogramCounts();

        assertThat(Arrays.stream(buckets).map(b -> Duration.ofNanos((long) b.bucket(TimeUnit.NANOSECONDS))))
                .containsExactlyElementsOf(MicrometerMetrics.DEFAULT_BUCKETS);
        assertThat(Arrays.stream(buckets).filter(b -> b.bucket(TimeUnit.MILLISECONDS) >= 1_000))
                .allSatisfy(b -> assertThat(b.count()).isEqualTo(1.0));
        assertThat(Arrays.stream(buckets).filter(b -> b.bucket(TimeUnit.MILLISECONDS) < 1_000))
                .allSatisfy(b -> assertThat(b.count()).isZero());
        assertThat(registry.get("purgatory.expiration.lateness").timer().takeSnapshot().histogramCounts())
                .hasSize(MicrometerMetrics.DEFAULT_BUCKETS.size());
    }

    @Test
    void withBuckets_givenUnsorted_sortsThem_andNoneMeansNoHistogram() {
        MicrometerMetrics custom = MicrometerMetrics.of(registry).withBuckets(Duration.ofSeconds(2),
                Duration.ofMillis(200));
        SimpleMeterRegistry another = new SimpleMeterRegistry(); // one registry holds one histogram setting
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("custom").timer(timer)
                .reaperEnabled(false).metrics(custom).build();
             DelayedOperationPurgatory<Op> plain = DelayedOperationPurgatory.<Op>builder("plain").timer(timer)
                .reaperEnabled(false).metrics(MicrometerMetrics.of(another).withBuckets()).build()) {
            assertThat(custom.buckets()).containsExactly(Duration.ofMillis(200), Duration.ofSeconds(2));
            assertThat(registry.get("purgatory.operations").tags("purgatory", "custom", "outcome", "expired")
                    .timer().takeSnapshot().histogramCounts()).hasSize(2);
            assertThat(another.get("purgatory.operations").tags("purgatory", "plain", "outcome", "expired")
                    .timer().takeSnapshot().histogramCounts()).isEmpty();
            assertThat(p.hasMetrics() && plain.hasMetrics()).isTrue();
        }
    }

    @Test
    void withBuckets_badInput_throwsNamingTheArgumentAndValue() {
        MicrometerMetrics m = MicrometerMetrics.of(registry);
        assertThatThrownBy(() -> MicrometerMetrics.of(null)).hasMessage("registry");
        assertThatThrownBy(() -> m.withBuckets((Duration[]) null)).hasMessage("buckets");
        assertThatThrownBy(() -> m.withBuckets(Duration.ofSeconds(1), null)).hasMessageContaining("null");
        assertThatThrownBy(() -> m.withBuckets(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("buckets must be positive: PT0S");
        assertThatThrownBy(() -> m.withBuckets(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() -> m.withBuckets(Duration.ofSeconds(1), Duration.ofMillis(500).multipliedBy(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct: PT1S");
    }

    @Test
    void counters_failuresRejectionsAndRetention_areCounted() {
        try (DelayedOperationPurgatory<Op> p = builder("full").maxPending(1).errorHandler((n, o, c, e) -> { }).build();
             KeyedWaits<String, String> waits = KeyedWaits.builder("waits").timer(timer)
                     .retainEvents(Duration.ofSeconds(10), 1).metrics(MicrometerMetrics.of(registry)).build()) {
            Op failing = new Op(1_000);
            failing.throwOnComplete = true;
            p.tryCompleteElseWatch(failing, List.of("k"));
            assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op(100), List.of("k")))
                    .isInstanceOf(PurgatoryFullException.class);
            failing.forceComplete();
            waits.complete("o1", "PAID");
            waits.complete("o2", "PAID"); // evicts o1
            assertThat(waits.await("o2", Duration.ofSeconds(1))).isCompletedWithValue("PAID");

            assertThat(registry.get("purgatory.rejected").tag("purgatory", "full").functionCounter().count())
                    .isEqualTo(1.0);
            assertThat(registry.get("purgatory.callback.errors").tags("purgatory", "full", "callback", "onComplete")
                    .functionCounter().count()).isEqualTo(1.0);
            assertThat(registry.get("purgatory.events.retained").tag("purgatory", "waits").gauge().value())
                    .isEqualTo(1.0);
            assertThat(registry.get("purgatory.events.retained.hits").tag("purgatory", "waits").functionCounter()
                    .count()).isEqualTo(1.0);
            assertThat(registry.get("purgatory.events.retained.evicted").tag("purgatory", "waits").functionCounter()
                    .count()).isEqualTo(1.0);
            assertThat(registry.find("purgatory.events.retained").tag("purgatory", "full").meter())
                    .as("no retention, no retention meters").isNull();
        }
        assertThat(registry.find("purgatory.events.retained").meter()).as("removed on close").isNull();
    }

    @Test
    void close_twoPurgatoriesOnOneRegistry_removesEveryMeterOfThisPurgatoryOnly() {
        DelayedOperationPurgatory<Op> other = builder("other").build();
        int both = registry.getMeters().size();

        other.close();

        assertThat(registry.getMeters()).hasSize(both / 2)
                .allSatisfy(m -> assertThat(m.getId().getTag("purgatory")).isEqualTo("metered"));
        purgatory.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void build_registryHasAPurgatoryOfTheSameName_throwsAndKeepsTheFirstOnesMeters() {
        purgatory.tryCompleteElseWatch(new Op(100), List.of("k"));

        assertThatThrownBy(() -> builder("metered").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'metered'");

        assertGauges(1, 1, 1);
    }

    @Test
    void bindMetrics_onAPurgatoryBuiltWithout_registersItsMeters() {
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("later").timer(timer)
                .reaperEnabled(false).build()) {
            p.tryCompleteElseWatch(new Op(100), List.of("a", "b"));

            p.bindMetrics(MicrometerMetrics.of(registry));

            assertThat(registry.get("purgatory.watched").tag("purgatory", "later").gauge().value()).isEqualTo(2.0);
        }
        assertThat(registry.find("purgatory.watched").tag("purgatory", "later").meter()).isNull();
    }

    @Test
    void tenantMeters_onlyWithTenants_countTheTenantsAndTheirRefusals_taggedByNoTenant() {
        try (DelayedOperationPurgatory<Op> tenanted = builder("tenanted")
                .tenants(op -> op.delayMs() == 1_000 ? "a" : "b", 1).build()) {
            tenanted.tryCompleteElseWatch(new Op(1_000), List.of("k"));
            tenanted.tryCompleteElseWatch(new Op(2_000), List.of("k"));
            assertThatThrownBy(() -> tenanted.tryCompleteElseWatch(new Op(1_000), List.of("k")))
                    .isInstanceOf(TenantFullException.class);

            assertThat(registry.get("purgatory.tenants").tag("purgatory", "tenanted").gauge().value()).isEqualTo(2.0);
            assertThat(registry.get("purgatory.tenant.rejected").tag("purgatory", "tenanted").functionCounter()
                    .count()).isEqualTo(1.0);
            assertThat(registry.get("purgatory.rejected").tag("purgatory", "tenanted").functionCounter().count())
                    .as("among all refusals").isEqualTo(1.0);
            assertThat(registry.find("purgatory.tenants").meters()).allSatisfy(m -> assertThat(m.getId().getTags())
                    .extracting(Tag::getKey).containsExactly("purgatory"));
        }
        assertThat(registry.find("purgatory.tenants").meter()).as("removed on close").isNull();
        assertThat(registry.find("purgatory.tenant.rejected").tag("purgatory", "metered").meter())
                .as("none without tenants").isNull();
    }

    private PurgatoryBuilder<Op> builder(String name) {
        return DelayedOperationPurgatory.<Op>builder(name).timer(timer).reaperEnabled(false)
                .metrics(MicrometerMetrics.of(registry));
    }

    private Timer operations(String outcome) {
        return registry.get("purgatory.operations").tags("purgatory", "metered", "outcome", outcome).timer();
    }

    private void assertGauges(int pending, int watched, int keys) {
        assertThat(registry.get("purgatory.pending").tag("purgatory", "metered").gauge().value()).isEqualTo(pending);
        assertThat(registry.get("purgatory.watched").tag("purgatory", "metered").gauge().value()).isEqualTo(watched);
        assertThat(registry.get("purgatory.keys").tag("purgatory", "metered").gauge().value()).isEqualTo(keys);
    }
}
