package io.purgatory.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryBuilder;
import io.purgatory.examples.DelayedFetch.FetchPartitionData;
import io.purgatory.examples.DelayedProduce.PartitionResponse;
import io.purgatory.examples.DelayedProduce.PartitionStatus;
import io.purgatory.micrometer.MicrometerMetrics;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A broker's replica manager, simply: the leader-side partitions of this broker, a produce
 * purgatory and a fetch purgatory. Every state change that can move a high watermark calls
 * {@code checkAndComplete(partition)} on the purgatories after the partition's lock is released.
 * Thread-safe.
 */
public final class ReplicaManager implements AutoCloseable {

    /** This broker's id; followers are 1..replicationFactor-1. */
    public static final int LOCAL_BROKER = 0;

    /**
     * The replication settings.
     *
     * @param replicationFactor replicas per partition, this broker included
     * @param minInsyncReplicas in-sync replicas an acks=all produce needs
     * @param replicaLagMaxMs   a follower missing a record older than this leaves the in-sync set
     */
    public record Config(int replicationFactor, int minInsyncReplicas, long replicaLagMaxMs) {
        public Config {
            if (replicationFactor < 1 || minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor) {
                throw new IllegalArgumentException("need 1 <= minInsyncReplicas (" + minInsyncReplicas
                        + ") <= replicationFactor (" + replicationFactor + ")");
            }
            if (replicaLagMaxMs < 0) {
                throw new IllegalArgumentException("replicaLagMaxMs must be >= 0: " + replicaLagMaxMs);
            }
        }

        /** Three replicas, two in sync required, 1 s lag allowed. */
        public static Config defaults() {
            return new Config(3, 2, 1000);
        }
    }

    private final Config config;
    private final Clock clock;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final DelayedOperationPurgatory<DelayedProduce> producePurgatory;
    private final DelayedOperationPurgatory<DelayedFetch> fetchPurgatory;
    private final LongAdder produceExpirations = new LongAdder();
    private final LongAdder fetchExpirations = new LongAdder();

    public ReplicaManager(Config config, Clock clock, PurgatoryBuilder<? super DelayedProduce> produce,
                          PurgatoryBuilder<? super DelayedFetch> fetch) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.producePurgatory = produce.build();
        this.fetchPurgatory = fetch.build();
    }

    /** A replica manager on real time whose purgatories report to {@code registry}. */
    public static ReplicaManager create(Config config, MeterRegistry registry) {
        return new ReplicaManager(config, Clock.system(),
                DelayedOperationPurgatory.builder("produce").metrics(MicrometerMetrics.of(registry)),
                DelayedOperationPurgatory.builder("fetch").metrics(MicrometerMetrics.of(registry)));
    }

    /** A deterministic replica manager: time moves only with {@code timer.advanceClock(ms)}. */
    public static ReplicaManager forTesting(Config config, ManualTimer timer) {
        return new ReplicaManager(config, timer.clock(),
                DelayedOperationPurgatory.builder("produce").timer(timer).reaperEnabled(false),
                DelayedOperationPurgatory.builder("fetch").timer(timer).reaperEnabled(false));
    }

    /** Creates {@code count} partitions of {@code topic}, led by this broker, all replicas in sync. */
    public void createTopic(String topic, int count) {
        for (int i = 0; i < count; i++) {
            TopicPartition tp = new TopicPartition(topic, i);
            partitions.putIfAbsent(tp, new Partition(tp, LOCAL_BROKER, config.replicationFactor(),
                    config.minInsyncReplicas()));
        }
    }

    /**
     * Appends one record per partition, then answers through {@code callback}: at once for acks 0
     * or 1 or when nothing was appended; for acks=-1 (all) once every partition's high watermark
     * passes its record, a partition fails, or {@code timeoutMs} passes.
     */
    public void appendRecords(long timeoutMs, int acks, Map<TopicPartition, byte[]> records,
                              Consumer<Map<TopicPartition, PartitionResponse>> callback) {
        if (acks < -1 || acks > 1) {
            throw new IllegalArgumentException("acks must be -1, 0 or 1: " + acks);
        }
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs must be >= 0: " + timeoutMs);
        }
        if (records.isEmpty()) {
            throw new IllegalArgumentException("records must not be empty");
        }
        long now = nowMs();
        Map<TopicPartition, PartitionStatus> status = new LinkedHashMap<>();
        List<TopicPartition> watermarkMoved = new ArrayList<>();
        boolean anyAppended = false;
        for (Map.Entry<TopicPartition, byte[]> e : records.entrySet()) {
            Partition p = partitions.get(e.getKey());
            if (p == null) {
                status.put(e.getKey(), new PartitionStatus(-1, false, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                continue;
            }
            Partition.AppendResult r = p.appendAsLeader(e.getValue(), acks == -1, now);
            if (r.error() != Errors.NONE) {
                status.put(e.getKey(), new PartitionStatus(-1, false, r.error()));
                continue;
            }
            anyAppended = true;
            boolean waitForAcks = acks == -1;
            status.put(e.getKey(), new PartitionStatus(r.offset(), waitForAcks,
                    waitForAcks ? Errors.REQUEST_TIMED_OUT : Errors.NONE));
            if (r.highWatermarkMoved()) {
                watermarkMoved.add(e.getKey());
            }
        }
        // partition locks are released: complete what the appends may have satisfied
        watermarkMoved.forEach(this::watermarkMoved);
        if (acks == -1 && anyAppended) {
            DelayedProduce produce = new DelayedProduce(timeoutMs, status, this::checkReplicas, callback,
                    produceExpirations::increment);
            if (status.size() == 1) { // one partition: it waits for the high watermark to pass its offset
                Map.Entry<TopicPartition, PartitionStatus> only = status.entrySet().iterator().next();
                producePurgatory.tryCompleteElseWatch(produce, only.getKey(), only.getValue().baseOffset + 1);
            } else {
                producePurgatory.tryCompleteElseWatch(produce, status.keySet());
            }
        } else {
            callback.accept(DelayedProduce.responses(status));
        }
    }

    /**
     * Reads from each partition's offset, answering through {@code callback} at once if
     * {@code minBytes} are readable, a partition fails or {@code maxWaitMs} is 0; else when one of
     * those happens, or with what is readable when {@code maxWaitMs} passes.
     */
    public void fetchMessages(long maxWaitMs, int minBytes, int maxBytes, Map<TopicPartition, Long> offsets,
                              Consumer<Map<TopicPartition, FetchPartitionData>> callback) {
        if (maxWaitMs < 0) {
            throw new IllegalArgumentException("maxWaitMs must be >= 0: " + maxWaitMs);
        }
        if (minBytes < 0 || maxBytes < 1) {
            throw new IllegalArgumentException("need minBytes >= 0 and maxBytes >= 1: " + minBytes + ", " + maxBytes);
        }
        if (offsets.isEmpty()) {
            throw new IllegalArgumentException("offsets must not be empty");
        }
        Map<TopicPartition, Long> copy = Map.copyOf(offsets);
        if (maxWaitMs == 0 || DelayedFetch.isSatisfied(minBytes, maxBytes, copy, partitions::get)) {
            callback.accept(DelayedFetch.read(maxBytes, copy, partitions::get));
            return;
        }
        DelayedFetch fetch = new DelayedFetch(maxWaitMs, minBytes, maxBytes, copy, partitions::get, callback,
                fetchExpirations::increment);
        if (copy.size() == 1 && minBytes <= maxBytes) { // one partition: it waits for enough committed bytes
            Map.Entry<TopicPartition, Long> only = copy.entrySet().iterator().next();
            Partition p = partitions.get(only.getKey());
            long start = p == null ? -1 : p.bytesBefore(only.getValue());
            if (start >= 0) {
                fetchPurgatory.tryCompleteElseWatch(fetch, only.getKey(), start + minBytes);
                return;
            }
        }
        fetchPurgatory.tryCompleteElseWatch(fetch, copy.keySet());
    }

    /** Follower {@code replica} fetches every partition, lagging {@code lagMs} behind the leader. */
    public void replicate(int replica, long lagMs) {
        long now = nowMs();
        for (Partition p : partitions.values()) {
            Partition.Change change = p.replicate(replica, now, lagMs, config.replicaLagMaxMs());
            if (change.isrChanged()) {
                completeDelayedRequests(p.topicPartition());
            } else if (change.highWatermarkMoved()) {
                watermarkMoved(p.topicPartition());
            }
        }
    }

    /** Drops lagging followers from the in-sync sets (which may move high watermarks). */
    public void maybeShrinkIsr() {
        long now = nowMs();
        for (Partition p : partitions.values()) {
            Partition.Change change = p.maybeShrinkIsr(now, config.replicaLagMaxMs());
            if (change.isrChanged()) {
                completeDelayedRequests(p.topicPartition());
            }
        }
    }

    /** Moves the leadership of {@code tp} to {@code brokerId}; operations waiting on it are decided. */
    public void electLeader(TopicPartition tp, int brokerId) {
        Partition p = partition(tp);
        if (p.electLeader(brokerId).isrChanged()) {
            completeDelayedRequests(tp);
        }
    }

    /** Whether this broker has {@code tp} (led here or not). */
    public boolean hasPartition(TopicPartition tp) {
        return partitions.containsKey(tp);
    }

    /** The partition, or an exception naming it if it does not exist. */
    public Partition partition(TopicPartition tp) {
        Partition p = partitions.get(tp);
        if (p == null) {
            throw new IllegalArgumentException("unknown partition: " + tp);
        }
        return p;
    }

    public List<TopicPartition> partitions() {
        List<TopicPartition> list = new ArrayList<>(partitions.keySet());
        list.sort((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition())
                : a.topic().compareTo(b.topic()));
        return list;
    }

    public DelayedOperationPurgatory<DelayedProduce> producePurgatory() {
        return producePurgatory;
    }

    public DelayedOperationPurgatory<DelayedFetch> fetchPurgatory() {
        return fetchPurgatory;
    }

    /** Produce requests that expired with partitions still waiting for acks. */
    public long produceExpirations() {
        return produceExpirations.sum();
    }

    /** Fetches answered at their maxWaitMs. */
    public long fetchExpirations() {
        return fetchExpirations.sum();
    }

    /** Closes both purgatories: pending requests expire now, so every caller gets its answer. */
    @Override
    public void close() {
        producePurgatory.close();
        fetchPurgatory.close();
    }

    private Errors checkReplicas(TopicPartition tp, long requiredOffset) {
        Partition p = partitions.get(tp);
        return p == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : p.checkEnoughReplicasReachOffset(requiredOffset);
    }

    /**
     * Only the high watermark moved: the produces and fetches waiting on {@code tp} at a position
     * it reached are tried, the others skipped (the plain ones are tried too).
     */
    private void watermarkMoved(TopicPartition tp) {
        Partition p = partitions.get(tp);
        producePurgatory.checkAndComplete(tp, p.highWatermark());
        fetchPurgatory.checkAndComplete(tp, p.committedBytes());
    }

    /** Anything else changed (the in-sync set, the leader): every operation waiting on {@code tp} is tried. */
    private void completeDelayedRequests(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        fetchPurgatory.checkAndComplete(tp);
    }

    private long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(clock.nanoTime());
    }
}
