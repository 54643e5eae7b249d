package io.purgatory.kafka;

/**
 * A snapshot of a {@link KafkaFeed}'s numbers. Each count is exact; taken while the feed runs,
 * two counts may be one record apart. Every record read ends as exactly one of completed, no
 * waiter, skipped, mapping error or complete error, so those five add up to {@code eventsRead}
 * once the feed is between records.
 *
 * @param eventsRead records read from the topic
 * @param eventsCompleted events that answered at least one wait
 * @param eventsNoWaiter events that answered none (kept as early events, if the waits keep them)
 * @param eventsSkipped records whose key function returned null: not events for these waits
 * @param mappingErrors records whose key or value function threw (logged and skipped)
 * @param completeErrors records whose {@code complete(key, value)} on the waits threw (a key whose
 *        {@code hashCode} or {@code equals} throws...; logged and skipped)
 * @param waitsAnswered waits answered, summed over the events ({@code complete}'s results)
 * @param consumerErrors errors of the consumer or of a lookup (broker unreachable past a timeout,
 *        offsets out of range...); the feed retries after each
 * @param partitions partitions of the topic the feed reads (positioned)
 * @param lag records behind the end of the topic, summed over the partitions, as of the last fetch
 *        or check; -1 while the feed cannot know it: not {@link FeedState#READY} nor
 *        {@link FeedState#READING_BACK}, or a partition joined the partitions read (on start, added
 *        to the topic, positioned again) and no poll has measured the lag since
 * @param maxPartitionLag the largest lag of one partition; -1 as {@code lag}
 * @param lagging the lag signal ({@link KafkaFeed#isLagging()})
 * @param state the readiness, with its reason ({@link KafkaFeed#state()})
 * @param running true from {@link KafkaFeed#start()} until the feed stopped
 */
public record FeedStats(long eventsRead, long eventsCompleted, long eventsNoWaiter, long eventsSkipped,
                        long mappingErrors, long completeErrors, long waitsAnswered, long consumerErrors,
                        int partitions, long lag, long maxPartitionLag, boolean lagging, FeedState state,
                        boolean running) {

    /** Whether the feed was {@link FeedState#READY} when the snapshot was taken. */
    public boolean ready() {
        return state == FeedState.READY;
    }
}
