package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Lag and the lagging signal, on manual nanoseconds and positions the test sets. */
class LagTrackerTest {

    private static final long THRESHOLD = TimeUnit.SECONDS.toNanos(10);
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    private final FeedCounters counters = new FeedCounters();
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    private long now = -5; // near zero, to cross it

    @Test
    void aFeedIsBehindFromItsStartUntilItReachesTheEndItFirstSaw() {
        counters.started(now);
        LagTracker lag = new LagTracker(counters, now);
        assertThat(counters.lagging(now + THRESHOLD, THRESHOLD)).as("never checked: behind since the start").isTrue();

        positions.put(P0, 0L);
        positions.put(P1, 0L);
        lag.lag(P0, 100);
        lag.lag(P1, 50);
        lag.update(this::position, now += 1_000);
        assertThat(counters.lagRecords()).isEqualTo(150);
        assertThat(counters.maxPartitionLagRecords()).isEqualTo(100);
        assertThat(counters.lagging(-5 + THRESHOLD - 1, THRESHOLD)).isFalse();
        assertThat(counters.lagging(-5 + THRESHOLD, THRESHOLD)).as("the first round began at the start").isTrue();

        positions.put(P0, 100L);
        positions.put(P1, 50L);
        lag.lag(P0, 0);
        lag.lag(P1, 0);
        lag.update(this::position, now += THRESHOLD);
        assertThat(counters.lagRecords()).isZero();
        assertThat(counters.lagging(now + THRESHOLD * 5, THRESHOLD)).isFalse();
    }

    @Test
    void aFeedThatKeepsReachingWhatItSawIsNotLaggingThoughNeverAtZero() {
        LagTracker lag = start();
        long position = 0;
        for (int round = 0; round < 100; round++) {
            lag.lag(P0, 5); // always a few records behind, on a busy topic
            lag.update(this::position, now += TimeUnit.SECONDS.toNanos(1));
            position += 5;
            positions.put(P0, position);
            assertThat(counters.lagging(now + THRESHOLD / 2, THRESHOLD)).isFalse();
        }
        assertThat(counters.lagRecords()).isEqualTo(5);
    }

    @Test
    void aFeedThatDoesNotReachWhatItSawWithinTheThresholdIsLagging() {
        LagTracker lag = start();
        lag.lag(P0, 1_000);
        lag.update(this::position, now += 1);
        long roundStart = now;
        for (int i = 1; i <= 20; i++) {
            positions.put(P0, 10L * i); // reads, but slower than the end moves
            lag.lag(P0, 1_000);
            lag.update(this::position, now += TimeUnit.SECONDS.toNanos(1));
        }
        assertThat(now - roundStart).isGreaterThanOrEqualTo(THRESHOLD);
        assertThat(counters.lagging(now, THRESHOLD)).isTrue();
        assertThat(counters.snapshot(now, THRESHOLD).lagging()).isTrue();
    }

    @Test
    void aPartitionBeingValidatedKeepsTheRoundOpen() {
        LagTracker lag = start();
        lag.lag(P0, 10);
        lag.update(this::position, now += 1);
        positions.remove(P0); // the consumer validates the position after a broker restart
        lag.update(this::position, now += THRESHOLD);
        assertThat(counters.lagging(now, THRESHOLD)).isTrue();
        positions.put(P0, 10L);
        lag.lag(P0, 0);
        lag.update(this::position, now += 1);
        assertThat(counters.lagging(now, THRESHOLD)).isFalse();
    }

    @Test
    void aBrokerThatDoesNotAnswerTheCheckIsLaggingAtOnce() {
        start();
        counters.reachable(false);
        assertThat(counters.lagging(now, THRESHOLD)).isTrue();
        counters.reachable(true);
        assertThat(counters.lagging(now, THRESHOLD)).isFalse();
    }

    private LagTracker start() {
        counters.started(now);
        LagTracker lag = new LagTracker(counters, now);
        positions.put(P0, 0L);
        lag.lag(P0, 0);
        lag.update(this::position, now);
        assertThat(counters.lagging(now + THRESHOLD, THRESHOLD)).isFalse();
        return lag;
    }

    private OptionalLong position(TopicPartition partition) {
        Long at = positions.get(partition);
        return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }
}
