package io.purgatory.kafka;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The counts of one feed: written by its thread only, read by {@link KafkaFeed#stats()} and the
 * meters from any thread. Every record read ends in exactly one outcome method, so the outcomes
 * add up to {@code read} between records.
 */
final class FeedCounters {

    private final AtomicLong read = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong noWaiter = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong mappingErrors = new AtomicLong();
    private final AtomicLong completeErrors = new AtomicLong();
    private final AtomicLong waitsAnswered = new AtomicLong();
    private final AtomicLong consumerErrors = new AtomicLong();

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

    void completeError() {
        completeErrors.incrementAndGet();
    }

    void consumerError() {
        consumerErrors.incrementAndGet();
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

    long completeErrorCount() {
        return completeErrors.get();
    }

    long waitsAnsweredCount() {
        return waitsAnswered.get();
    }

    long consumerErrorCount() {
        return consumerErrors.get();
    }
}
