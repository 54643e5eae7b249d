package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualClock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The builder's checks, the counters, the meters and the throttled warning, without a broker. */
class FeedUnitTest {

    private final KeyedWaits<String, String> waits = KeyedWaits.builder("orders")
            .retainEvents(Duration.ofSeconds(30), 10).build();

    @AfterEach
    void close() {
        waits.close();
    }

    @Test
    void builder_badInput_isNamedWithItsValue() {
        assertThatThrownBy(() -> KafkaFeed.builder(waits, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic");
        assertThatThrownBy(() -> KafkaFeed.builder(waits, "pay ments")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic").hasMessageContaining("'pay ments'");
        assertThatThrownBy(() -> KafkaFeed.builder(waits, "..")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'..'");
        KafkaFeed.Builder<String, String> b = KafkaFeed.builder(waits, "t");
        assertThatThrownBy(() -> b.consumerProperty("group.id", "g")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group.id").hasMessageContaining("g");
        assertThatThrownBy(() -> b.readBack(Duration.ofMillis(-1))).hasMessageContaining("readBack")
                .hasMessageContaining("-0.001S");
        assertThatThrownBy(() -> b.readBack(Duration.ofDays(40_000))).hasMessageContaining("readBack")
                .hasMessageContaining("PT960000H");
        assertThatThrownBy(() -> b.lagThreshold(Duration.ofMillis(-1))).hasMessageContaining("lagThreshold");
        assertThatThrownBy(() -> b.lagThreshold(Duration.ofDays(365))).hasMessageContaining("lagThreshold")
                .hasMessageContaining("PT8760H");
        assertThatThrownBy(() -> b.name(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> b.bootstrapServers("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bootstrapServers");
        assertThatThrownBy(() -> b.consumerProperty("enable.auto.commit", true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enable.auto.commit")
                .hasMessageContaining("true");
        assertThatThrownBy(() -> b.consumerProperty("fetch.min.bytes", "many"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fetch.min.bytes")
                .hasMessageContaining("many");
        assertThatThrownBy(() -> b.consumerProperty("isolation.level", "dirty"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("isolation.level")
                .hasMessageContaining("dirty");
        assertThatThrownBy(() -> b.createTopicIfMissing(0, (short) 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitions must be >= 1: 0");
        assertThatThrownBy(() -> b.createTopicIfMissing(3, (short) 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicationFactor must be >= 1: 0");
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("key");
        b.key(r -> "k").value(r -> "v");
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("bootstrap");
    }

    @Test
    void build_readBackAndNameNotGiven_areTheWaitsWindowAndName() {
        KafkaFeed.Builder<String, String> b = KafkaFeed.builder(waits, "t");
        KafkaFeed<String, String> feed = b.bootstrapServers("127.0.0.1:1").key(r -> "k").value(r -> "v").build();
        assertThat(feed.config().readBack()).isEqualTo(Duration.ofSeconds(30));
        assertThat(feed.name()).isEqualTo("orders");
        assertThat(feed.topic()).isEqualTo("t");
        b.name("changed later").readBack(Duration.ZERO).consumerProperty("fetch.min.bytes", 1000);
        assertThat(feed.name()).as("the feed's configuration is a value, not the builder").isEqualTo("orders");
        assertThat(feed.config().readBack()).isEqualTo(Duration.ofSeconds(30));
        assertThat(feed.config().consumerConfig()).doesNotContainKey("fetch.min.bytes");
    }

    @Test
    void kafkaFeedMetrics_bound_readTheLiveCountersAndLeaveOnClose() {
        ManualClock clock = new ManualClock();
        KafkaFeed<String, String> feed = KafkaFeed.builder(waits, "payments").bootstrapServers("127.0.0.1:1")
                .key(r -> "k").value(r -> "v").name("pay").clock(clock).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaFeedMetrics metrics = new KafkaFeedMetrics(feed);
        metrics.bindTo(registry);
        FeedCounters c = feed.counters();
        c.read();
        c.handedOver(3);
        c.read();
        c.mappingError();
        c.read();
        c.completeError();
        c.consumerError();
        FeedHealth health = feed.health();
        health.partitions(6);
        health.lag(12, 7);

        assertThat(registry.get("purgatory.feed.events").tags("feed", "pay", "topic", "payments")
                .tag("outcome", "completed").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("purgatory.feed.events").tag("outcome", "mapping_error").functionCounter().count())
                .isEqualTo(1);
        assertThat(registry.get("purgatory.feed.events").tag("outcome", "complete_error").functionCounter().count())
                .isEqualTo(1);
        assertThat(registry.get("purgatory.feed.events").tag("outcome", "no_waiter").functionCounter().count())
                .isZero();
        assertThat(registry.get("purgatory.feed.waits.answered").functionCounter().count()).isEqualTo(3);
        assertThat(registry.get("purgatory.feed.consumer.errors").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("purgatory.feed.partitions").gauge().value()).isEqualTo(6);
        assertThat(registry.get("purgatory.feed.lag").gauge().value()).as("not started: unknown").isNaN();
        assertThat(registry.get("purgatory.feed.lag.max").gauge().value()).isNaN();
        assertThat(registry.get("purgatory.feed.ready").gauge().value()).isZero();
        assertThat(registry.get("purgatory.feed.lagging").gauge().value()).as("never started: not behind").isZero();

        health.started(clock.nanoTime());
        health.phase(FeedState.READY);
        assertThat(registry.get("purgatory.feed.ready").gauge().value()).isEqualTo(1);
        assertThat(registry.get("purgatory.feed.lag").gauge().value()).isEqualTo(12);
        assertThat(registry.get("purgatory.feed.lag.max").gauge().value()).isEqualTo(7);
        clock.advance(KafkaFeed.MAX_SILENCE.plusMillis(1));
        assertThat(registry.get("purgatory.feed.ready").gauge().value()).as("the broker is silent").isZero();
        assertThat(registry.get("purgatory.feed.lag").gauge().value()).isNaN();
        assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTag("feed")).isEqualTo("pay"));
        FeedStats stats = feed.stats();
        assertThat(FeedLifecycleTest.outcomes(stats)).isEqualTo(stats.eventsRead()).isEqualTo(3);
        assertThat(stats.lag()).isEqualTo(-1);

        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
        metrics.close();
    }

    @Test
    void throttledWarning_repeated_isLoggedOncePerIntervalWithTheCountOfTheOthers() {
        ManualClock clock = new ManualClock();
        try (LogCapture log = new LogCapture(FeedUnitTest.class)) {
            ThrottledWarning warning = new ThrottledWarning(LoggerFactory.getLogger(FeedUnitTest.class), clock,
                    TimeUnit.SECONDS.toNanos(10));
            for (int i = 0; i < 5; i++) {
                warning.warn("bad record", new IllegalArgumentException("x" + i));
            }
            clock.advance(10, TimeUnit.SECONDS);
            warning.warn("bad record", new IllegalArgumentException("x5"));

            assertThat(log.events()).hasSize(2).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));
            assertThat(log.events().get(0).getThrowableProxy().getMessage()).isEqualTo("x0");
            assertThat(log.events().get(1).getFormattedMessage()).isEqualTo("bad record (4 more like it since the"
                    + " last warning)");
            assertThat(log.events().get(1).getThrowableProxy().getMessage()).isEqualTo("x5");
        }
    }
}
