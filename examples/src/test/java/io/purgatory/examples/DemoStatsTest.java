package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.micrometer.MicrometerMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The summary's percentiles: computed in process, close to the true ones, never above the largest value recorded. */
class DemoStatsTest {

    @Test
    void percentileMs_histogramReportsABucketEdgeAboveTheMax_isTheMax() {
        // Micrometer's default precision (one digit): the bucket 100 us falls in reaches past it
        MeterRegistry registry = registry(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(config);
            }
        });
        Timer timer = timer(registry);
        for (int i = 1; i <= 1000; i++) {
            timer.record(100L * i, TimeUnit.NANOSECONDS); // 0.1 us to 100 us, evenly
        }
        assertThat(timer.takeSnapshot().percentileValues()[1].value(TimeUnit.MILLISECONDS))
                .as("the histogram's own p99").isGreaterThan(0.1);

        DemoStats stats = new DemoStats(registry, null, List.of());

        assertThat(stats.maxMs("p", "completed")).isEqualTo(0.1);
        assertThat(stats.percentileMs("p", "completed", 0.99)).isEqualTo(0.1);
    }

    @Test
    void percentileMs_asTheDemoConfiguresIt_isWithinOnePercentOfTheTruePercentile_andNotAboveTheMax() {
        MeterRegistry registry = registry(DemoStats.percentiles());
        Timer timer = timer(registry);
        for (int i = 1; i <= 1000; i++) {
            timer.record(10_000L * i, TimeUnit.NANOSECONDS); // 10 us to 10 ms, evenly
        }
        DemoStats stats = new DemoStats(registry, null, List.of());

        double max = stats.maxMs("p", "completed");
        assertThat(max).isEqualTo(10.0);
        assertThat(stats.percentileMs("p", "completed", 0.99)).isCloseTo(9.9, within(0.099)).isLessThanOrEqualTo(max);
        assertThat(stats.percentileMs("p", "completed", 0.5)).isCloseTo(5.0, within(0.05));
    }

    @Test
    void percentileMs_unknownPurgatory_isNaN() {
        DemoStats stats = new DemoStats(registry(DemoStats.percentiles()), null, List.of());

        assertThat(stats.percentileMs("nothing", "completed", 0.99)).isNaN();
        assertThat(stats.maxMs("nothing", "completed")).isNaN();
    }

    private static MeterRegistry registry(MeterFilter percentiles) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(percentiles);
        return registry;
    }

    /** As {@link MicrometerMetrics} registers it: with the Grafana board's buckets. */
    private static Timer timer(MeterRegistry registry) {
        return Timer.builder("purgatory.operations").tags("purgatory", "p", "outcome", "completed")
                .serviceLevelObjectives(MicrometerMetrics.DEFAULT_BUCKETS.toArray(new Duration[0]))
                .register(registry);
    }
}
