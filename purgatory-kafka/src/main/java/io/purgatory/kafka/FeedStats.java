package io.purgatory.kafka;

/**
 * A snapshot of a {@link KafkaFeed}'s numbers. Each count is exact; taken while the feed runs,
 * two counts may be one record apart. Every record read ends as exactly one of completed, no
 * waiter, skipped or mapping error, so those four add up to {@code eventsRead} once the feed is
 * between records.
 *
 * @param eventsRead records read from the topic
 * @param eventsCompleted events that answered at least one wait
 * @param eventsNoWaiter events that answered none (kept as early events, if the waits keep them)
 * @param eventsSkipped records whose key function returned null: not events for these waits
 * @param mappingErrors records whose key or value function threw (logged and skipped)
 * @param waitsAnswered waits answered, summed over the events ({@code complete}'s results)
 * @param consumerErrors errors of the consumer (broker unreachable past a timeout, offsets out of
 *        range...); the feed retries after each
 * @param partitions partitions of the topic the feed reads
 * @param lag records behind the end of the topic, summed over the partitions, as of the last
 *        fetch or offset check
 * @param maxPartitionLag the largest lag of one partition
 * @param lagging the health signal: the feed has been behind for longer than its threshold, or has
 *        not reached the broker since its last check
 * @param running true from {@link KafkaFeed#start()} until the feed stopped
 */
public record FeedStats(long eventsRead, long eventsCompleted, long eventsNoWaiter, long eventsSkipped,
                        long mappingErrors, long waitsAnswered, long consumerErrors, int partitions, long lag,
                        long maxPartitionLag, boolean lagging, boolean running) {
}
