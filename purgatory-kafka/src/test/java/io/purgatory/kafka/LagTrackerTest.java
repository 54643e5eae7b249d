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

    private final FeedHealth health = new FeedHealth();
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    private long now = -5; // near zero, to cross it

    @Test
    void lagging_fromTheStart_untilTheFeedReachesTheEndItFirstSaw() {
        health.started(now);
        health.phase(FeedState.READY);
        LagTracker lag = new LagTracker(health, now);
        assertThat(lagging(now + THRESHOLD, THRESHOLD)).as("never checked: behind since the start").isTrue();

        positions.put(P0, 0L);
        positions.put(P1, 0L);
        lag.lag(P0, 100);
        lag.lag(P1, 50);
        lag.update(this::position, now += 1_000);
        assertThat(lagRecords()).isEqualTo(150);
        assertThat(maxPartitionLagRecords()).isEqualTo(100);
        assertThat(lagging(-5 + THRESHOLD - 1, THRESHOLD)).isFalse();
        assertThat(lagging(-5 + THRESHOLD, THRESHOLD)).as("the first round began at the start").isTrue();

        positions.put(P0, 100L);
        positions.put(P1, 50L);
        lag.lag(P0, 0);
        lag.lag(P1, 0);
        lag.update(this::position, now += THRESHOLD);
        assertThat(lagRecords()).isZero();
        assertThat(lagging(now + THRESHOLD * 5, THRESHOLD)).isFalse();
    }

    @Test
    void lagging_feedKeepsReachingWhatItSaw_isFalseThoughTheLagIsNeverZero() {
        LagTracker lag = start();
        long position = 0;
        for (int round = 0; round < 100; round++) {
            lag.lag(P0, 5); // always a few records behind, on a busy topic
            lag.update(this::position, now += TimeUnit.SECONDS.toNanos(1));
            position += 5;
            positions.put(P0, position);
            assertThat(lagging(now + THRESHOLD / 2, THRESHOLD)).isFalse();
        }
        assertThat(lagRecords()).isEqualTo(5);
    }

    @Test
    void lagging_feedDoesNotReachWhatItSawWithinTheThreshold_isTrue() {
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
        assertThat(lagging(now, THRESHOLD)).isTrue();
    }

    @Test
    void lagging_partitionBeingValidated_keepsTheRoundOpen() {
        LagTracker lag = start();
        lag.lag(P0, 10);
        lag.update(this::position, now += 1);
        positions.remove(P0); // the consumer validates the position after a broker restart
        lag.update(this::position, now += THRESHOLD);
        assertThat(lagging(now, THRESHOLD)).isTrue();
        positions.put(P0, 10L);
        lag.lag(P0, 0);
        lag.update(this::position, now += 1);
        assertThat(lagging(now, THRESHOLD)).isFalse();
    }

    @Test
    void lagging_brokerSilentForLongerThanTheLimit_isTrueAndTheLagUnknown() {
        start();
        health.answered(now);
        long silentUntil = now + FeedHealth.MAX_SILENCE_NANOS;
        health.beat(silentUntil + 1);
        assertThat(health.lagging(silentUntil, THRESHOLD)).isFalse();
        assertThat(health.lagging(silentUntil + 1, THRESHOLD)).isTrue();
        assertThat(health.lagRecords(silentUntil + 1)).isEqualTo(-1);
        health.answered(silentUntil + 1);
        assertThat(health.lagging(silentUntil + 1, THRESHOLD)).isFalse();
        assertThat(health.lagRecords(silentUntil + 1)).isZero();
    }

    private LagTracker start() {
        health.started(now);
        health.phase(FeedState.READY);
        LagTracker lag = new LagTracker(health, now);
        positions.put(P0, 0L);
        lag.lag(P0, 0);
        lag.update(this::position, now);
        assertThat(lagging(now + THRESHOLD, THRESHOLD)).isFalse();
        return lag;
    }

    /** Whether the feed lags at {@code at}, the broker and the thread alive until then. */
    private boolean lagging(long at, long threshold) {
        health.beat(at);
        health.answered(at);
        return health.lagging(at, threshold);
    }

    private long lagRecords() {
        health.beat(now);
        health.answered(now);
        return health.lagRecords(now);
    }

    private long maxPartitionLagRecords() {
        health.beat(now);
        health.answered(now);
        return health.maxPartitionLagRecords(now);
    }

    private OptionalLong position(TopicPartition partition) {
        Long at = positions.get(partition);
        return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }
}
