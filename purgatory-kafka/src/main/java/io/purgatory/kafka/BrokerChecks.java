package io.purgatory.kafka;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The feed's questions to the broker, asked without blocking its thread: every second a check
 * that the broker answers (the end offsets of the partitions read, or the topic's partitions while
 * none is read), and every refresh interval the topic's partitions (F6). The answers feed the
 * readiness (F5), the lag and the partitions to position. Used by the feed's thread only.
 */
final class BrokerChecks {

    static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TopicAdmin admin;
    private final String name;
    private final String topic;
    private final long refreshNanos;
    private final FeedHealth health;
    private final LagTracker lag;
    private final FeedErrors errors;
    private final TopicSpec create;
    private CompletableFuture<Set<TopicPartition>> describe;
    private CompletableFuture<Map<TopicPartition, Long>> ends;
    private CompletableFuture<Void> creation;
    private long describeAtNanos;
    private long endsAtNanos;
    private boolean described;
    private boolean missing;
    private boolean warnedMissing;
    private Set<TopicPartition> found;

    /** The partitions and replication factor of a topic to create if it is missing. */
    record TopicSpec(int partitions, short replicationFactor) {
    }

    BrokerChecks(TopicAdmin admin, String name, String topic, long refreshNanos, FeedHealth health, LagTracker lag,
                 FeedErrors errors, TopicSpec create, long nowNanos) {
        this.admin = admin;
        this.name = name;
        this.topic = topic;
        this.refreshNanos = refreshNanos;
        this.health = health;
        this.lag = lag;
        this.errors = errors;
        this.create = create;
        this.describeAtNanos = nowNanos;
        this.endsAtNanos = nowNanos;
    }

    /**
     * Takes the answers that came and sends the checks that are due, given the partitions the
     * consumer reads (its assignment) and their positions.
     */
    void service(long nowNanos, Set<TopicPartition> assigned, Function<TopicPartition, OptionalLong> position) {
        takeDescribe(nowNanos, assigned.isEmpty());
        takeEnds(nowNanos, assigned, position);
        takeCreation(nowNanos);
        if (describe == null && nowNanos - describeAtNanos >= 0) {
            // (F6) asked of the broker, not of a metadata cache; every second while no partition is read (F5)
            describe = admin.partitions(topic);
            describeAtNanos = nowNanos + (assigned.isEmpty() ? Math.min(CHECK_NANOS, refreshNanos) : refreshNanos);
        }
        if (ends == null && !assigned.isEmpty() && nowNanos - endsAtNanos >= 0) {
            ends = admin.endOffsets(assigned); // (F5) the check of every second
            endsAtNanos = nowNanos + CHECK_NANOS;
        }
    }

    /** The topic's partitions the broker told since the last call, or null if it told none. */
    Set<TopicPartition> takeFound() {
        Set<TopicPartition> partitions = found;
        found = null;
        return partitions;
    }

    /** Whether the broker has told the topic's partitions (or that it is missing) at least once. */
    boolean described() {
        return described;
    }

    /** Whether the broker's last word on the topic was that it does not exist. */
    boolean topicMissing() {
        return missing;
    }

    private void takeDescribe(long nowNanos, boolean nothingRead) {
        if (describe == null || !describe.isDone()) {
            return;
        }
        CompletableFuture<Set<TopicPartition>> answered = describe;
        describe = null;
        Set<TopicPartition> partitions;
        try {
            partitions = answered.join();
        } catch (RuntimeException e) {
            errors.consumer("could not look up the partitions of topic " + topic + "; it asks again later", e);
            return;
        }
        described = true;
        missing = partitions.isEmpty();
        if (nothingRead) {
            health.answered(nowNanos); // the check of every second while no partition is read (F5)
        }
        if (!missing) {
            found = partitions;
            return;
        }
        if (create != null) {
            if (creation == null) {
                creation = admin.createTopic(topic, create.partitions(), create.replicationFactor());
            }
        } else if (!warnedMissing) {
            FeedLoop.LOG.warn("Feed '{}': topic {} does not exist; the feed looks for it every second", name, topic);
            warnedMissing = true;
        }
    }

    private void takeEnds(long nowNanos, Set<TopicPartition> assigned,
                          Function<TopicPartition, OptionalLong> position) {
        if (ends == null || !ends.isDone()) {
            return;
        }
        CompletableFuture<Map<TopicPartition, Long>> answered = ends;
        ends = null;
        Map<TopicPartition, Long> offsets;
        try {
            offsets = answered.join();
        } catch (RuntimeException e) {
            errors.consumer("could not check the end offsets of topic " + topic + "; it checks again every second", e);
            return;
        }
        health.answered(nowNanos);
        offsets.forEach((partition, end) -> {
            if (assigned.contains(partition)) { // not one repositioned since the check was sent
                OptionalLong at = position.apply(partition);
                if (at.isPresent()) {
                    lag.lag(partition, end - at.getAsLong());
                }
            }
        });
    }

    private void takeCreation(long nowNanos) {
        if (creation == null || !creation.isDone()) {
            return;
        }
        CompletableFuture<Void> answered = creation;
        creation = null;
        try {
            answered.join();
        } catch (RuntimeException e) {
            errors.consumer("could not create topic " + topic + " (" + create.partitions() + " partitions, replication "
                    + create.replicationFactor() + "); it tries again while the topic is missing", e);
            return;
        }
        FeedLoop.LOG.info("Feed '{}': topic {} created ({} partitions, replication {}), or found created", name,
                topic, create.partitions(), create.replicationFactor());
        describeAtNanos = nowNanos; // look at it at once
    }

}
