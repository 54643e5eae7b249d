package io.purgatory.kafka;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * What a feed asks the broker besides its records: the topic's partitions, end offsets, the
 * offsets of a time, and the topic's creation. Every answer is the broker's at the time of the
 * call, never a client-side cache. Calls do not block: their futures complete on the client's own
 * thread, failed after the client's timeout at the latest. Thread-safe.
 */
interface TopicAdmin extends AutoCloseable {

    /** The topic's partitions; an empty set when the broker says the topic does not exist. */
    CompletableFuture<Set<TopicPartition>> partitions(String topic);

    /** The end offsets of {@code partitions}: the last stable offsets when the feed reads committed records. */
    CompletableFuture<Map<TopicPartition, Long>> endOffsets(Collection<TopicPartition> partitions);

    /**
     * For each partition, the offset of its first record whose timestamp is at least the given one
     * (milliseconds); a partition with no such record is absent from the answer.
     */
    CompletableFuture<Map<TopicPartition, Long>> offsetsForTimes(Map<TopicPartition, Long> timestampsMs);

    /** Creates the topic; completes normally if it exists already. */
    CompletableFuture<Void> createTopic(String topic, int partitions, short replicationFactor);

    /** Closes the client at once; calls under way fail. */
    @Override
    void close();
}
