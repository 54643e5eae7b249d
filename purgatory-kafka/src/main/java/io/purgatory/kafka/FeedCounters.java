package io.purgatory.kafka;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The live numbers of one feed: written by its thread only, read by {@link KafkaFeed#stats()} and
 * the meters from any thread. Every record read ends in exactly one outcome method, so the
 * outcomes add up to {@code read} between records.
 */
final class FeedCounters {

    private final AtomicLong read = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong noWaiter = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong mappingErrors = new AtomicLong();
    private final AtomicLong waitsAnswered = new AtomicLong();
    private final AtomicLong consumerErrors = new AtomicLong();
    private volatile int partitions;
    private volatile long lag;
    private volatile long maxPartitionLag;
    // behindSinceNanos is written before behind is set, and read after it: a reader that sees
    // behind sees the time it began.
    private volatile long behindSinceNanos;
    private volatile boolean behind;
    private volatile boolean reachable = true;
    // dispatchSinceNanos is written before dispatching is set, as behindSinceNanos before behind
    private volatile long dispatchSinceNanos;
    private volatile boolean dispatching;
    private volatile boolean running;

    /** The feed starts at {@code nowNanos}: behind until it has read to the end of every partition. */
    void started(long nowNanos) {
        behindSinceNanos = nowNanos;
        behind = true;
        running = true;
    }

    void stopped() {
        running = false;
    }

    void read() {
        read.incrementAndGet();
    }

    /** The event answered {@code waits} waits (none: it had no waiter). */
    void handedOver(int waits) {
        if (waits > 0) {
            waitsAnswered.addAndGet(waits);
            completed.incrementAndGet();
        } else {
            noWaiter.incrementAndGet();
        }
    }

    void skipped() {
        skipped.incrementAndGet();
    }

    void mappingError() {
        mappingErrors.incrementAndGet();
    }

    void consumerError() {
        consumerErrors.incrementAndGet();
    }

    void partitions(int count) {
        partitions = count;
    }

    /** The feed hands a batch of records to the waits from {@code nowNanos} on, until {@link #dispatched()}. */
    void dispatching(long nowNanos) {
        dispatchSinceNanos = nowNanos;
        dispatching = true;
    }

    void dispatched() {
        dispatching = false;
    }

    /** Whether the last check of the broker (partitions, end offsets) answered. */
    void reachable(boolean answered) {
        reachable = answered;
    }

    /** The lag now: {@code total} records behind the end offsets, at most {@code max} on one partition. */
    void lag(long total, long max) {
        lag = total;
        maxPartitionLag = max;
    }

    /** Whether the feed has yet to reach the end offsets it saw at {@code sinceNanos}. */
    void behind(boolean isBehind, long sinceNanos) {
        if (isBehind) {
            behindSinceNanos = sinceNanos;
        }
        behind = isBehind;
    }

    /**
     * The feed has not reached, within {@code thresholdNanos}, the end offsets it saw then; or it
     * has spent that long on one batch (a mapping function or a dependent stage blocks its thread,
     * and the lag it last measured is stale); or the broker did not answer the last check.
     */
    boolean lagging(long nowNanos, long thresholdNanos) {
        if (!reachable || (dispatching && nowNanos - dispatchSinceNanos >= thresholdNanos)) {
            return true;
        }
        return behind && nowNanos - behindSinceNanos >= thresholdNanos;
    }

    FeedStats snapshot(long nowNanos, long thresholdNanos) {
        return new FeedStats(read.get(), completed.get(), noWaiter.get(), skipped.get(), mappingErrors.get(),
                waitsAnswered.get(), consumerErrors.get(), partitions, lag, maxPartitionLag,
                lagging(nowNanos, thresholdNanos), running);
    }

    long readCount() {
        return read.get();
    }

    long completedCount() {
        return completed.get();
    }

    long noWaiterCount() {
        return noWaiter.get();
    }

    long skippedCount() {
        return skipped.get();
    }

    long mappingErrorCount() {
        return mappingErrors.get();
    }

    long waitsAnsweredCount() {
        return waitsAnswered.get();
    }

    long consumerErrorCount() {
        return consumerErrors.get();
    }

    int partitionCount() {
        return partitions;
    }

    long lagRecords() {
        return lag;
    }

    long maxPartitionLagRecords() {
        return maxPartitionLag;
    }
}
