package io.purgatory.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The lag of one feed, and whether it keeps up. A feed on a busy topic is always a few records
 * behind, so "behind" is measured in rounds: when the feed sees a lag, the end offsets of that
 * moment become its target, and the round ends when its positions reach them. The feed is
 * lagging when a round has lasted longer than the threshold. Used by the feed's thread only.
 */
final class LagTracker {

    private final FeedHealth health;
    private final Map<TopicPartition, Long> lags = new HashMap<>();
    private final Map<TopicPartition, Long> targets = new HashMap<>();
    private long roundStartNanos;
    private boolean first = true;

    /** Starts behind, from {@code startNanos}: the first round ends at the end offsets of the first check. */
    LagTracker(FeedHealth health, long startNanos) {
        this.health = health;
        this.roundStartNanos = startNanos;
    }

    /** Records {@code partition}'s lag: records between its position and its end offset. */
    void lag(TopicPartition partition, long records) {
        lags.put(partition, Math.max(0, records));
    }

    /**
     * {@code partition} joins the partitions read, {@code records} behind its end offset as its
     * lookup saw it. The lag published so far left it out, so it is unknown until the next
     * {@link #update}, after the next poll (F5).
     */
    void positioned(TopicPartition partition, long records) {
        lag(partition, records);
        health.lag(FeedHealth.UNKNOWN, FeedHealth.UNKNOWN);
    }

    /** Forgets {@code partition}, positioned again: its lag and its target come with its next position. */
    void forget(TopicPartition partition) {
        lags.remove(partition);
        targets.remove(partition);
    }

    /**
     * Publishes the lag and ends or starts a round, given each partition's position now
     * ({@code position} answers empty for one the consumer is still validating).
     */
    void update(Function<TopicPartition, OptionalLong> position, long nowNanos) {
        long total = 0;
        long max = 0;
        for (long lag : lags.values()) {
            total += lag;
            max = Math.max(max, lag);
        }
        health.lag(total, max);
        targets.entrySet().removeIf(target -> {
            OptionalLong at = position.apply(target.getKey());
            return at.isPresent() && at.getAsLong() >= target.getValue();
        });
        if (!targets.isEmpty()) {
            return; // the round goes on
        }
        for (Map.Entry<TopicPartition, Long> lag : lags.entrySet()) {
            OptionalLong at = position.apply(lag.getKey());
            if (lag.getValue() > 0 && at.isPresent()) {
                targets.put(lag.getKey(), at.getAsLong() + lag.getValue());
            }
        }
        if (!first) {
            roundStartNanos = nowNanos;
        }
        first = false;
        health.behind(!targets.isEmpty(), roundStartNanos);
    }
}
