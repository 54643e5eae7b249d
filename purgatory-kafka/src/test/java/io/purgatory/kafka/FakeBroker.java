package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A broker in memory for the feed's tests, deterministic where a real one races: one topic's log
 * per partition, read through Kafka's {@link MockConsumer} (this class) and asked about through
 * {@link #admin()}, both answering from the same records. The test appends records, deletes old
 * ones, adds partitions, takes the broker down, and makes the next lookup or poll throw.
 * Thread-safe: the feed's thread, the admin's callers and the test share it.
 */
final class FakeBroker extends MockConsumer<byte[], byte[]> {

    private final String topic;
    private final Map<Integer, List<ConsumerRecord<byte[], byte[]>>> logs = new HashMap<>(); // guarded by this
    private final Map<TopicPartition, Long> logStarts = new HashMap<>(); // guarded by this
    private final Map<TopicPartition, Long> handed = new HashMap<>(); // guarded by this: next offset given to super
    private final Queue<Throwable> lookupFailures = new ArrayDeque<>(); // guarded by this
    private final Queue<Throwable> pollFailures = new ArrayDeque<>(); // guarded by this
    private boolean exists; // guarded by this
    private boolean down; // guarded by this
    private volatile Runnable beforePoll = () -> { };
    private volatile Throwable closeFailure;
    private volatile boolean adminClosed;
    private final FakeAdmin admin = new FakeAdmin();

    /** A feed of {@code waits} on this broker's topic: string keys and values, short retries. */
    KafkaFeed.Builder<String, String> feed(KeyedWaits<String, String> waits) {
        return feedOf(waits).key(record -> record.key() == null ? null : new String(record.key(), UTF_8))
                .value(record -> new String(record.value(), UTF_8));
    }

    /** A feed of {@code waits} on this broker's topic, short retries; the key and value functions are the caller's. */
    <K, V> KafkaFeed.Builder<K, V> feedOf(KeyedWaits<K, V> waits) {
        return KafkaFeed.builder(waits, topic).bootstrapServers("fake:9092")
                .consumerFactory(config -> this).adminFactory((config, timeout) -> admin)
                .timeouts(Duration.ofMillis(10), Duration.ofSeconds(5), Duration.ofMillis(10));
    }

    /** A broker with {@code topic} of {@code partitions} partitions, or without it if {@code partitions} is 0. */
    FakeBroker(String topic, int partitions) {
        super("none");
        this.topic = topic;
        if (partitions > 0) {
            createTopic(partitions);
        }
    }

    TopicAdmin admin() {
        return admin;
    }

    /** Appends a record stamped now to {@code partition}; returns its offset. */
    synchronized long append(int partition, String key, String value) {
        return appendAt(partition, System.currentTimeMillis(), key, value);
    }

    /** Appends a record stamped {@code timestampMs} to {@code partition}; returns its offset. */
    synchronized long appendAt(int partition, long timestampMs, String key, String value) {
        List<ConsumerRecord<byte[], byte[]>> log = logs.get(partition);
        long offset = log.size();
        log.add(new ConsumerRecord<>(topic, partition, offset, timestampMs, TimestampType.CREATE_TIME, -1, -1,
                key == null ? null : key.getBytes(UTF_8), value.getBytes(UTF_8),
                new RecordHeaders(), Optional.empty()));
        updateEndOffsets(Map.of(new TopicPartition(topic, partition), offset + 1));
        return offset;
    }

    /** Creates the topic (or adds partitions to it) up to {@code partitions} partitions. */
    synchronized void createTopic(int partitions) {
        exists = true;
        for (int p = logs.size(); p < partitions; p++) {
            logs.put(p, new ArrayList<>());
            logStarts.put(new TopicPartition(topic, p), 0L);
            updateEndOffsets(Map.of(new TopicPartition(topic, p), 0L));
        }
    }

    /** Retention: the records of {@code partition} below {@code offset} are gone. */
    synchronized void deleteBefore(int partition, long offset) {
        logStarts.put(new TopicPartition(topic, partition), offset);
    }

    /** The broker stops answering (lookups time out, polls return nothing), or answers again. */
    synchronized void down(boolean isDown) {
        down = isDown;
    }

    /** The next lookup of the offsets of a time (the positioning's) fails with {@code error}. */
    synchronized void failNextLookup(Throwable error) {
        lookupFailures.add(error);
    }

    /** The next poll throws {@code error}, a RuntimeException or an Error (a consumer interceptor's, say). */
    synchronized void failNextPoll(Throwable error) {
        pollFailures.add(error);
    }

    @Override
    public synchronized void assign(Collection<TopicPartition> partitions) {
        super.assign(partitions);
        handed.keySet().retainAll(partitions);
    }

    @Override
    public synchronized void seek(TopicPartition partition, long offset) {
        super.seek(partition, offset);
        handed.put(partition, offset);
    }

    /** The consumer's close throws {@code error} (after closing), as a consumer interceptor's close may. */
    void failClose(Throwable error) {
        closeFailure = error;
    }

    /** Whether the feed closed its admin client. */
    boolean adminClosed() {
        return adminClosed;
    }

    @Override
    public void close(CloseOptions options) {
        super.close(options);
        Throwable failure = closeFailure;
        if (failure instanceof Error error) {
            throw error;
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    /** Runs {@code hook} on the feed's thread at the start of each poll: what the feed shows while it polls. */
    void beforePoll(Runnable hook) {
        beforePoll = hook;
    }

    @Override
    @SuppressWarnings("UnsynchronizedOverridesSynchronized") // the idle park must not hold the lock
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        beforePoll.run();
        ConsumerRecords<byte[], byte[]> records = handOverAndPoll(timeout);
        if (records.isEmpty()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return records;
    }

    private synchronized ConsumerRecords<byte[], byte[]> handOverAndPoll(Duration timeout) {
        Throwable failure = pollFailures.poll();
        if (failure instanceof Error error) {
            throw error;
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
        if (down) {
            return ConsumerRecords.empty();
        }
        Map<TopicPartition, Long> outOfRange = new HashMap<>();
        for (TopicPartition partition : assignment()) {
            long at = position(partition); // NoOffsetForPartitionException if the feed never positioned it
            long start = logStarts.get(partition);
            if (at < start) {
                outOfRange.put(partition, at);
                continue;
            }
            List<ConsumerRecord<byte[], byte[]>> log = logs.get(partition.partition());
            for (long offset = Math.max(at, handed.getOrDefault(partition, at)); offset < log.size(); offset++) {
                addRecord(log.get((int) offset));
            }
            handed.put(partition, (long) log.size());
        }
        if (!outOfRange.isEmpty()) {
            throw new OffsetOutOfRangeException("gone", outOfRange);
        }
        return super.poll(timeout);
    }

    /** The admin side: answers at once, from the same logs. */
    private final class FakeAdmin implements TopicAdmin {

        @Override
        public CompletableFuture<Set<TopicPartition>> partitions(String name) {
            synchronized (FakeBroker.this) {
                if (down) {
                    return CompletableFuture.failedFuture(new TimeoutException("down"));
                }
                Set<TopicPartition> all = new HashSet<>();
                if (exists && name.equals(topic)) {
                    logs.keySet().forEach(p -> all.add(new TopicPartition(topic, p)));
                }
                return CompletableFuture.completedFuture(all);
            }
        }

        @Override
        public CompletableFuture<Map<TopicPartition, Long>> endOffsets(Collection<TopicPartition> partitions) {
            synchronized (FakeBroker.this) {
                if (down) {
                    return CompletableFuture.failedFuture(new TimeoutException("down"));
                }
                Map<TopicPartition, Long> ends = new HashMap<>();
                partitions.forEach(p -> ends.put(p, (long) logs.get(p.partition()).size()));
                return CompletableFuture.completedFuture(ends);
            }
        }

        @Override
        public CompletableFuture<Map<TopicPartition, Long>> offsetsForTimes(Map<TopicPartition, Long> timestampsMs) {
            synchronized (FakeBroker.this) {
                Throwable failure = lookupFailures.poll();
                if (failure != null) {
                    return CompletableFuture.failedFuture(failure);
                }
                if (down) {
                    return CompletableFuture.failedFuture(new TimeoutException("down"));
                }
                Map<TopicPartition, Long> found = new HashMap<>();
                timestampsMs.forEach((partition, time) -> {
                    List<ConsumerRecord<byte[], byte[]>> log = logs.get(partition.partition());
                    for (long offset = logStarts.get(partition); offset < log.size(); offset++) {
                        if (log.get((int) offset).timestamp() >= time) {
                            found.put(partition, offset);
                            return;
                        }
                    }
                });
                return CompletableFuture.completedFuture(found);
            }
        }

        @Override
        public CompletableFuture<Void> createTopic(String name, int partitions, short replicationFactor) {
            synchronized (FakeBroker.this) {
                if (!exists) {
                    FakeBroker.this.createTopic(partitions);
                }
                return CompletableFuture.completedFuture(null);
            }
        }

        @Override
        public void close() {
            adminClosed = true;
        }
    }
}
