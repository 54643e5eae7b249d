package io.purgatory.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@link TopicAdmin} on Kafka's {@link Admin} client: one per feed, configured from the feed's
 * consumer properties (bootstrap servers, security...), with the consumer's isolation level, and
 * every call bounded by the feed's lookup timeout. Thread-safe, as the Admin client is.
 */
final class KafkaTopicAdmin implements TopicAdmin {

    private final Admin admin;
    private final int timeoutMs;
    private final IsolationLevel isolation;

    private KafkaTopicAdmin(Admin admin, int timeoutMs, IsolationLevel isolation) {
        this.admin = admin;
        this.timeoutMs = timeoutMs;
        this.isolation = isolation;
    }

    /**
     * An admin client configured from the feed's consumer configuration: the properties an Admin
     * client knows, its {@code client.id} suffixed with {@code -admin}.
     */
    static TopicAdmin create(Map<String, Object> consumerConfig, Duration timeout) {
        Map<String, Object> config = new HashMap<>();
        for (String key : AdminClientConfig.configNames()) {
            if (consumerConfig.containsKey(key)) {
                config.put(key, consumerConfig.get(key));
            }
        }
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, consumerConfig.get(ConsumerConfig.CLIENT_ID_CONFIG) + "-admin");
        Object level = consumerConfig.getOrDefault(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        IsolationLevel isolation = IsolationLevel.valueOf(level.toString().toUpperCase(Locale.ROOT));
        return new KafkaTopicAdmin(Admin.create(config), (int) timeout.toMillis(), isolation);
    }

    @Override
    public CompletableFuture<Set<TopicPartition>> partitions(String topic) {
        return adapt(admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(timeoutMs))
                .topicNameValues().get(topic), (description, error) -> {
                    if (error instanceof UnknownTopicOrPartitionException) {
                        return Set.of();
                    } else if (error != null) {
                        throw error;
                    }
                    Set<TopicPartition> all = new HashSet<>();
                    for (TopicPartitionInfo info : description.partitions()) {
                        all.add(new TopicPartition(topic, info.partition()));
                    }
                    return all;
                });
    }

    @Override
    public CompletableFuture<Map<TopicPartition, Long>> endOffsets(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        for (TopicPartition partition : partitions) {
            query.put(partition, OffsetSpec.latest());
        }
        return offsets(query);
    }

    @Override
    public CompletableFuture<Map<TopicPartition, Long>> offsetsForTimes(Map<TopicPartition, Long> timestampsMs) {
        Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        timestampsMs.forEach((partition, timestamp) -> query.put(partition, OffsetSpec.forTimestamp(timestamp)));
        return offsets(query);
    }

    @Override
    public CompletableFuture<Void> createTopic(String topic, int partitions, short replicationFactor) {
        return adapt(admin.createTopics(List.of(new NewTopic(topic, partitions, replicationFactor)),
                new CreateTopicsOptions().timeoutMs(timeoutMs)).all(), (none, error) -> {
                    if (error != null && !(error instanceof TopicExistsException)) {
                        throw error;
                    }
                    return null;
                });
    }

    @Override
    public void close() {
        admin.close(Duration.ZERO);
    }

    /** The offsets the broker answers; a partition it has no offset for (-1: no record at that time) is left out. */
    private CompletableFuture<Map<TopicPartition, Long>> offsets(Map<TopicPartition, OffsetSpec> query) {
        return adapt(admin.listOffsets(query, new ListOffsetsOptions(isolation).timeoutMs(timeoutMs)).all(),
                (infos, error) -> {
                    if (error != null) {
                        throw error;
                    }
                    Map<TopicPartition, Long> offsets = new HashMap<>();
                    infos.forEach((partition, info) -> {
                        if (info.offset() >= 0) {
                            offsets.put(partition, info.offset());
                        }
                    });
                    return offsets;
                });
    }

    /** An answer to a call: its result from the client's value or error (unwrapped), or a throw to fail it. */
    @FunctionalInterface
    private interface Answer<T, R> {
        R apply(T value, Throwable error) throws Throwable;
    }

    /** The call's future as a CompletableFuture, completed on the client's thread, whatever the answer throws. */
    @SuppressWarnings("FutureReturnValueIgnored") // the callback completes `adapted` in every case
    private static <T, R> CompletableFuture<R> adapt(KafkaFuture<T> future, Answer<T, R> answer) {
        CompletableFuture<R> adapted = new CompletableFuture<>();
        future.whenComplete((value, error) -> {
            try {
                adapted.complete(answer.apply(value, error == null ? null : cause(error)));
            } catch (Throwable failed) {
                adapted.completeExceptionally(failed);
            }
        });
        return adapted;
    }

    private static Throwable cause(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
