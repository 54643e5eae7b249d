package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code purgatory.events.unanswered} and {@code purgatory.events.late}: counted for keyed waits
 * only, tagged by the purgatory's name and never by key, however many keys the events had.
 */
class UnansweredEventMetersTest {

    @Test
    void unansweredAndLateEvents_areCounted_taggedByNameOnly_neverByKey() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<String> keys = new ArrayList<>();
        try (ManualTimer timer = new ManualTimer();
             KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                     .lateEvents(Duration.ofSeconds(10), 1_000).metrics(MicrometerMetrics.of(registry)).build();
             DelayedOperationPurgatory<Op> ops = DelayedOperationPurgatory.<Op>builder("ops").timer(timer)
                     .metrics(MicrometerMetrics.of(registry)).build()) {
            for (int i = 0; i < 20; i++) {
                String key = "order-" + i;
                keys.add(key);
                var unused = waits.await(key + "-late", Duration.ofMillis(10));
                keys.add(key + "-late");
            }
            timer.advanceClock(10);
            for (int i = 0; i < 20; i++) {
                waits.complete("order-" + i, "PAID");
                waits.complete("order-" + i + "-late", "PAID");
            }

            assertThat(registry.get("purgatory.events.unanswered").functionCounter().count()).isEqualTo(20);
            assertThat(registry.get("purgatory.events.late").functionCounter().count()).isEqualTo(20);
            for (String name : List.of("purgatory.events.unanswered", "purgatory.events.late")) {
                assertThat(registry.find(name).meters()).as(name).singleElement()
                        .satisfies(m -> assertThat(m.getId().getTags()).containsExactly(Tag.of("purgatory",
                                "payments")));
            }
            for (Meter meter : registry.getMeters()) {
                for (Tag tag : meter.getId().getTags()) {
                    assertThat(keys).as("a tag of %s", meter.getId()).doesNotContain(tag.getValue());
                }
            }
            String scrape = registry.scrape();
            assertThat(scrape).contains("purgatory_events_unanswered_total{purgatory=\"payments\"} 20.0")
                    .contains("purgatory_events_late_total{purgatory=\"payments\"} 20.0")
                    .doesNotContain("order-");
            assertThat(registry.find("purgatory.pending").tag("purgatory", ops.name()).meter()).isNotNull();
            assertThat(registry.find("purgatory.events.unanswered").tag("purgatory", "ops").meter())
                    .as("a purgatory of operations has no events").isNull();
        } finally {
            registry.close();
        }
        assertThat(registry.find("purgatory.events.late").meter()).as("removed on close").isNull();
    }
}
