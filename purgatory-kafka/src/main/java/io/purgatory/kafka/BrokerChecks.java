package io.purgatory.kafka;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The feed's questions to the broker, asked without blocking its thread: every second one check,
 * the topic's partitions and their end offsets (F6). The answers feed the readiness (F5), the
 * partitions to position and the lag. Used by the feed's thread only.
 */
final class BrokerChecks {

    static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The broker's answer to a check: the topic's partitions (none: it does not exist) and their end offsets. */
    private record Answer(Set<TopicPartition> partitions, Map<TopicPartition, Long> ends) {
    }

    private final TopicAdmin admin;
    private final String name;
    private final String topic;
    private final FeedHealth health;
    private final LagTracker lag;
    private final Positioner positioner;
    private final FeedErrors errors;
    private final TopicSpec create;
    private CompletableFuture<Answer> check;
    private CompletableFuture<Void> creation;
    private long checkAtNanos;
    private boolean described;
    private boolean missing;
    private boolean warnedMissing;

    /** The partitions and replication factor of a topic to create if it is missing. */
    record TopicSpec(int partitions, short replicationFactor) {
    }

    BrokerChecks(TopicAdmin admin, String name, String topic, FeedHealth health, LagTracker lag,
                 Positioner positioner, FeedErrors errors, TopicSpec create, long nowNanos) {
        this.admin = admin;
        this.name = name;
        this.topic = topic;
        this.health = health;
        this.lag = lag;
        this.positioner = positioner;
        this.errors = errors;
        this.create = create;
        this.checkAtNanos = nowNanos;
    }

    /**
     * Takes the answers that came and sends the check when it is due, given the partitions the
     * consumer reads (its assignment) and their positions.
     */
    void service(long nowNanos, Set<TopicPartition> assigned, Function<TopicPartition, OptionalLong> position) {
        takeCheck(nowNanos, assigned, position);
        takeCreation(nowNanos);
        if (check == null && nowNanos - checkAtNanos >= 0) {
            check = admin.partitions(topic).thenCompose(partitions -> partitions.isEmpty()
                    ? CompletableFuture.completedFuture(new Answer(partitions, Map.of()))
                    : admin.endOffsets(partitions).thenApply(ends -> new Answer(partitions, ends)));
            checkAtNanos = nowNanos + CHECK_NANOS;
        }
    }

    /** Whether the broker has told the topic's partitions (or that it is missing) at least once. */
    boolean described() {
        return described;
    }

    /** Whether the broker's last word on the topic was that it does not exist. */
    boolean topicMissing() {
        return missing;
    }

    private void takeCheck(long nowNanos, Set<TopicPartition> assigned,
                           Function<TopicPartition, OptionalLong> position) {
        if (check == null || !check.isDone()) {
            return;
        }
        CompletableFuture<Answer> answered = check;
        check = null;
        Answer answer;
        try {
            answer = answered.join();
        } catch (RuntimeException e) {
            errors.consumer("could not check the partitions and end offsets of topic " + topic
                    + "; it checks again every second", e);
            return;
        }
        health.answered(nowNanos); // (F5)
        described = true;
        missing = answer.partitions().isEmpty();
        if (missing) {
            createOrWarn();
            return;
        }
        positioner.found(answer.partitions()); // (F6) those not read yet are pending: the feed is not ready
        answer.ends().forEach((partition, end) -> {
            if (assigned.contains(partition)) { // not one repositioned since the check was sent
                OptionalLong at = position.apply(partition);
                if (at.isPresent()) {
                    lag.lag(partition, end - at.getAsLong());
                }
            }
        });
    }

    /** The broker says the topic does not exist: create it, or say so once. */
    private void createOrWarn() {
        if (create != null) {
            if (creation == null) {
                creation = admin.createTopic(topic, create.partitions(), create.replicationFactor());
            }
        } else if (!warnedMissing) {
            FeedLoop.LOG.warn("Feed '{}': topic {} does not exist; the feed looks for it every second", name, topic);
            warnedMissing = true;
        }
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
        checkAtNanos = nowNanos; // look at it at once
    }

}
