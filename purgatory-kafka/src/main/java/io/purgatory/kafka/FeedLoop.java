package io.purgatory.kafka;

import io.purgatory.KeyedWaits;
import io.purgatory.timer.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job of a feed's thread: position every partition of the topic by timestamp, then poll and
 * hand each record to the keyed waits, until {@link #stop()} or until the waits close. It owns the
 * consumer (used by this thread only, closed when the loop ends).
 */
final class FeedLoop<K, V> implements Runnable {

    /*
     * Implementation notes.
     *
     * (F1) No gap: a partition's position is set once, when it is first assigned, to the first
     *      offset whose timestamp is at least `fromTimestampMs` (the feed's start minus the
     *      read-back), or to the end offset read *before* that lookup when there is none; a record
     *      appended between the two lookups has a later timestamp, so the first lookup finds it.
     *      From then on only poll() moves the position, past the records it returned, and every
     *      returned record is dispatched. A broker restart or an error leaves the position where
     *      it was, so reading resumes at the next record. The one exception is a position the
     *      broker no longer has (OffsetOutOfRange: records deleted, or the log truncated): the
     *      partition is positioned again by timestamp, and the skip is logged and counted.
     * (F2) Nothing completes a closed wait: the loop stops at the first record after the waits
     *      closed, and a complete() that races their close() answers nothing (KeyedWaits settles
     *      each wait once, and complete() after close() returns 0).
     */

    static final Logger LOG = LoggerFactory.getLogger(KafkaFeed.class);

    private final String name;
    private final String topic;
    private final Consumer<byte[], byte[]> consumer;
    private final KeyedWaits<K, V> waits;
    private final Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> keyOf;
    private final Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> valueOf;
    private final FeedCounters counters;
    private final Clock clock;
    private final long fromTimestampMs;
    private final long readBackMs;
    private final LongSupplier wallClockMs;
    private final long refreshNanos;
    private final Duration pollTimeout;
    private final Duration apiTimeout;
    private final Duration retryBackoff;
    private final ThrottledWarning mappingWarning;
    private final ThrottledWarning consumerWarning;
    private final LagTracker lag;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private long nextRefreshNanos;
    private boolean warnedMissingTopic;

    FeedLoop(FeedConfig<K, V> config, Consumer<byte[], byte[]> consumer, FeedCounters counters) {
        FeedEnvironment env = config.env();
        this.name = config.name();
        this.topic = config.topic();
        this.consumer = consumer;
        this.waits = config.waits();
        this.keyOf = config.keyOf();
        this.valueOf = config.valueOf();
        this.counters = counters;
        this.clock = env.clock();
        this.wallClockMs = env.wallClockMs();
        this.readBackMs = config.readBack().toMillis();
        this.fromTimestampMs = Math.max(0, wallClockMs.getAsLong() - readBackMs);
        this.refreshNanos = config.refreshInterval().toNanos();
        this.pollTimeout = env.pollTimeout();
        this.apiTimeout = env.apiTimeout();
        this.retryBackoff = env.retryBackoff();
        this.mappingWarning = new ThrottledWarning(LOG, clock, TimeUnit.SECONDS.toNanos(10));
        this.consumerWarning = new ThrottledWarning(LOG, clock, TimeUnit.SECONDS.toNanos(10));
        this.nextRefreshNanos = clock.nanoTime();
        this.lag = new LagTracker(counters, nextRefreshNanos);
    }

    /** Asks the loop to end; the consumer's wakeup() breaks a poll or lookup under way. Any thread. */
    void stop() {
        stopping = true;
        stopped.countDown();
        consumer.wakeup();
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                if (waits.isClosed()) {
                    LOG.warn("Feed '{}' stops: its keyed waits '{}' were closed before it. Close the feed first"
                            + " (or build it with closeWaits(true) and close only the feed).", name, waits.name());
                    return;
                }
                try {
                    step();
                } catch (WakeupException e) {
                    // stop() woke the consumer: the loop's condition decides
                } catch (OffsetOutOfRangeException e) {
                    counters.consumerError();
                    LOG.warn("Feed '{}': positions {} are no longer on the broker (deleted or truncated);"
                            + " those partitions are read again from {} ms ago", name,
                            e.offsetOutOfRangePartitions(), readBackMs);
                    reposition(e.offsetOutOfRangePartitions().keySet());
                } catch (RuntimeException e) {
                    counters.consumerError();
                    consumerWarning.warn("Feed '" + name + "' could not read topic " + topic + "; it retries", e);
                    pause(retryBackoff);
                }
            }
        } catch (Error e) {
            LOG.error("Feed '{}' stopped by an error", name, e);
            throw e;
        } finally {
            counters.stopped();
            try {
                consumer.close(CloseOptions.timeout(Duration.ZERO)); // no group, nothing to commit
            } catch (RuntimeException e) {
                LOG.debug("Feed '{}': closing the consumer failed", name, e);
            }
        }
    }

    private void step() {
        if (clock.nanoTime() - nextRefreshNanos >= 0) {
            refresh();
            nextRefreshNanos = clock.nanoTime() + refreshNanos;
        }
        if (consumer.assignment().isEmpty()) {
            pause(Duration.ofNanos(refreshNanos)); // no partition yet: wait for the next check
            return;
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
        counters.dispatching(clock.nanoTime());
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                if (stopping || waits.isClosed()) { // (F2)
                    return;
                }
                dispatch(record);
            }
        } finally {
            counters.dispatched();
        }
        for (TopicPartition partition : consumer.assignment()) {
            OptionalLong behind = consumer.currentLag(partition); // the last fetch's: no remote call
            if (behind.isPresent()) {
                lag.lag(partition, behind.getAsLong());
            }
        }
        lag.update(this::positionNow, clock.nanoTime());
    }

    /** Hands one record to the waits; a throwing mapping function costs that record only. */
    private void dispatch(ConsumerRecord<byte[], byte[]> record) {
        counters.read();
        int answered;
        try {
            K key = keyOf.apply(record);
            if (key == null) {
                counters.skipped();
                return;
            }
            answered = waits.complete(key, valueOf.apply(record));
        } catch (RuntimeException e) {
            counters.mappingError();
            mappingWarning.warn("Feed '" + name + "': the record at " + record.topic() + "-" + record.partition()
                    + "@" + record.offset() + " could not be mapped to a key and value; it is skipped", e);
            return;
        }
        counters.handedOver(answered);
    }

    /**
     * Finds partitions not read yet (all of them on the first call), positions them (F1), and
     * checks the end offsets of every partition: the lag, and whether the broker answers.
     */
    private void refresh() {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, apiTimeout);
            Set<TopicPartition> all = new HashSet<>();
            for (PartitionInfo info : infos) {
                all.add(new TopicPartition(info.topic(), info.partition()));
            }
            Set<TopicPartition> added = new HashSet<>(all);
            added.removeAll(consumer.assignment());
            if (all.isEmpty() && !warnedMissingTopic) {
                LOG.warn("Feed '{}': topic {} has no partitions (does it exist?); it looks again every {} ms", name,
                        topic, TimeUnit.NANOSECONDS.toMillis(refreshNanos));
                warnedMissingTopic = true;
            }
            if (!added.isEmpty()) {
                Set<TopicPartition> assigned = new HashSet<>(consumer.assignment());
                assigned.addAll(added);
                consumer.assign(assigned); // keeps the positions of the partitions it had
                position(added, fromTimestampMs);
                counters.partitions(assigned.size());
            }
            Set<TopicPartition> assigned = consumer.assignment();
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, apiTimeout);
            for (TopicPartition partition : assigned) {
                Long end = ends.get(partition);
                OptionalLong at = positionNow(partition);
                if (end != null && at.isPresent()) {
                    lag.lag(partition, end - at.getAsLong());
                }
            }
            lag.update(this::positionNow, clock.nanoTime());
            counters.reachable(true);
        } catch (RuntimeException e) {
            if (!(e instanceof WakeupException)) {
                counters.reachable(false);
            }
            throw e;
        }
    }

    /** Positions again, by timestamp, partitions whose position the broker no longer has (F1). */
    private void reposition(Collection<TopicPartition> partitions) {
        try {
            position(partitions, Math.max(0, wallClockMs.getAsLong() - readBackMs));
        } catch (WakeupException e) {
            // stop() woke the consumer
        } catch (RuntimeException e) {
            counters.consumerError(); // the next poll fails again on them, and this is tried again
            consumerWarning.warn("Feed '" + name + "' could not position " + partitions + "; it retries", e);
            pause(retryBackoff);
        }
    }

    /** Seeks each partition to its first record at or after {@code timestampMs}, else to its end (F1). */
    private void position(Collection<TopicPartition> partitions, long timestampMs) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, apiTimeout); // before the lookup (F1)
        Map<TopicPartition, Long> query = new HashMap<>();
        for (TopicPartition partition : partitions) {
            query.put(partition, timestampMs);
        }
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, apiTimeout);
        for (TopicPartition partition : partitions) {
            OffsetAndTimestamp first = found.get(partition);
            long offset = first != null ? first.offset() : ends.get(partition);
            consumer.seek(partition, offset);
            lag.lag(partition, ends.get(partition) - offset);
            LOG.debug("Feed '{}' reads {} from offset {}", name, partition, offset);
        }
    }

    /** The partition's position, or empty while the consumer validates it (after a leader change). */
    private OptionalLong positionNow(TopicPartition partition) {
        try {
            return OptionalLong.of(consumer.position(partition, Duration.ZERO));
        } catch (TimeoutException validating) {
            return OptionalLong.empty();
        }
    }

    private void pause(Duration duration) {
        try {
            stopped.await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            stopping = true;
            Thread.currentThread().interrupt();
        }
    }
}
