package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One Prometheus registry, two purgatories: timers with a histogram next to timers without one
 * would make {@code scrape()} throw, so the second binding is refused, naming both purgatories and
 * both settings; different bucket sets are fine.
 */
class MixedHistogramsTest {

    private final ManualTimer timer = new ManualTimer();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final MicrometerMetrics metrics = MicrometerMetrics.of(registry);

    @AfterEach
    void tearDown() {
        timer.close();
        registry.close();
    }

    @Test
    void bind_bucketsThenNone_isRefusedNamingBothAndTheScrapeStillWorks() {
        try (DelayedOperationPurgatory<Op> withBuckets = purgatory("with-buckets", metrics);
             DelayedOperationPurgatory<Op> later = purgatory("later", null)) {
            expireOne(withBuckets);

            assertThatThrownBy(() -> purgatory("no-buckets", metrics.withBuckets()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'no-buckets'").hasMessageContaining("no histogram")
                    .hasMessageContaining("'with-buckets'").hasMessageContaining("14 buckets");
            assertThatThrownBy(() -> later.bindMetrics(metrics.withBuckets()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'later'");

            assertThat(later.hasMetrics()).isFalse();
            assertThat(registry.scrape()).contains("purgatory_operations_seconds_bucket{outcome=\"expired\","
                    + "purgatory=\"with-buckets\",le=\"0.001\"}").doesNotContain("no-buckets", "\"later\"");
        }
    }

    @Test
    void bind_noneThenBuckets_isRefusedToo() {
        try (DelayedOperationPurgatory<Op> none = purgatory("none", metrics.withBuckets())) {
            expireOne(none);

            assertThatThrownBy(() -> purgatory("buckets", metrics.withBuckets(Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'buckets'").hasMessageContaining("1 bucket")
                    .hasMessageContaining("'none'").hasMessageContaining("no histogram");

            assertThat(registry.scrape()).contains("purgatory_operations_seconds_count{outcome=\"expired\","
                    + "purgatory=\"none\"} 1");
        }
    }

    @Test
    void bind_differentBucketSets_bothServedByOneScrape() {
        try (DelayedOperationPurgatory<Op> a = purgatory("a", metrics);
             DelayedOperationPurgatory<Op> b = purgatory("b", metrics.withBuckets(Duration.ofSeconds(3)))) {
            expireOne(a);
            expireOne(b);

            assertThat(registry.scrape()).contains(
                    "purgatory_operations_seconds_bucket{outcome=\"expired\",purgatory=\"a\",le=\"60.0\"} 1",
                    "purgatory_operations_seconds_bucket{outcome=\"expired\",purgatory=\"b\",le=\"3.0\"} 1");
        }
    }

    @Test
    void bind_theOnlyPurgatoryWithBucketsClosed_theOtherSettingBindsThen() {
        purgatory("first", metrics).close();

        try (DelayedOperationPurgatory<Op> none = purgatory("second", metrics.withBuckets())) {
            expireOne(none);
            assertThat(registry.scrape()).contains("purgatory=\"second\"");
        }
    }

    private DelayedOperationPurgatory<Op> purgatory(String name, MicrometerMetrics bound) {
        var builder = DelayedOperationPurgatory.<Op>builder(name).timer(timer).reaperEnabled(false);
        return (bound == null ? builder : builder.metrics(bound)).build();
    }

    private void expireOne(DelayedOperationPurgatory<Op> purgatory) {
        purgatory.tryCompleteElseWatch(new Op(10), List.of("k"));
        timer.advanceClock(10);
    }
}
