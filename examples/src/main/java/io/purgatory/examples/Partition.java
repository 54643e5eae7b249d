package io.purgatory.examples;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * One partition of the simulated log, as its leader sees it: the records, the followers' log end
 * offsets, the in-sync replica set and the high watermark (the lowest log end offset among the
 * in-sync replicas). Thread-safe: every method holds the partition's monitor; none calls out.
 */
public final class Partition {

    /** What a state change did to the high watermark: callers complete delayed operations on it. */
    public record Change(boolean highWatermarkMoved, boolean isrChanged) {
        static final Change NONE = new Change(false, false);
    }

    private final TopicPartition topicPartition;
    private final int localBrokerId;
    private final int[] replicas;
    private final int minInsyncReplicas;
    private final List<byte[]> records = new ArrayList<>();
    private long[] endPositions = new long[64];
    private long[] appendTimesMs = new long[64];
    private final long[] followerEndOffsets;
    private final Set<Integer> inSync = new TreeSet<>();
    private int leader;
    private long highWatermark;

    Partition(TopicPartition topicPartition, int localBrokerId, int replicationFactor, int minInsyncReplicas) {
        this.topicPartition = topicPartition;
        this.localBrokerId = localBrokerId;
        this.replicas = new int[replicationFactor];
        for (int i = 0; i < replicationFactor; i++) {
            replicas[i] = localBrokerId + i;
            inSync.add(localBrokerId + i);
        }
        this.minInsyncReplicas = minInsyncReplicas;
        this.followerEndOffsets = new long[replicationFactor];
        this.leader = localBrokerId;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The result of a leader append: the record's offset, or -1 and the error. */
    record AppendResult(long offset, Errors error, boolean highWatermarkMoved) {
    }

    /** Appends one record as leader at {@code nowMs} (acks=all needs the minimum in-sync replicas). */
    synchronized AppendResult appendAsLeader(byte[] payload, boolean requireMinIsr, long nowMs) {
        if (leader != localBrokerId) {
            return new AppendResult(-1, Errors.NOT_LEADER_OR_FOLLOWER, false);
        }
        if (requireMinIsr && inSync.size() < minInsyncReplicas) {
            return new AppendResult(-1, Errors.NOT_ENOUGH_REPLICAS, false);
        }
        long offset = records.size();
        int n = records.size();
        if (n == endPositions.length) {
            endPositions = Arrays.copyOf(endPositions, n * 2);
            appendTimesMs = Arrays.copyOf(appendTimesMs, n * 2);
        }
        endPositions[n] = (n == 0 ? 0 : endPositions[n - 1]) + payload.length;
        appendTimesMs[n] = n == 0 ? nowMs : Math.max(appendTimesMs[n - 1], nowMs); // monotonic
        records.add(payload);
        followerEndOffsets[0] = records.size();
        return new AppendResult(offset, Errors.NONE, maybeAdvanceHighWatermark());
    }

    /**
     * A fetch by follower {@code replica} (1..replicationFactor-1) that lags {@code lagMs}: it
     * copies every record appended at or before {@code nowMs - lagMs}. It rejoins the in-sync set
     * once it has reached the high watermark and is within {@code maxLagMs}.
     */
    synchronized Change replicate(int replica, long nowMs, long lagMs, long maxLagMs) {
        int index = replica - localBrokerId;
        if (leader != localBrokerId || index <= 0 || index >= replicas.length) {
            return Change.NONE;
        }
        long cutoff = nowMs - lagMs;
        long end = followerEndOffsets[index];
        while (end < records.size() && appendTimesMs[(int) end] <= cutoff) {
            end++;
        }
        followerEndOffsets[index] = end;
        boolean isrChanged = false;
        if (!inSync.contains(replica) && end >= highWatermark && lagTimeMs(index, nowMs) <= maxLagMs) {
            inSync.add(replica);
            isrChanged = true;
        }
        boolean moved = maybeAdvanceHighWatermark();
        return new Change(moved, isrChanged);
    }

    /** Drops from the in-sync set the followers missing records older than {@code maxLagMs}. */
    synchronized Change maybeShrinkIsr(long nowMs, long maxLagMs) {
        if (leader != localBrokerId) {
            return Change.NONE;
        }
        boolean changed = false;
        for (int i = 1; i < replicas.length; i++) {
            if (inSync.contains(replicas[i]) && lagTimeMs(i, nowMs) > maxLagMs) {
                inSync.remove(replicas[i]);
                changed = true;
            }
        }
        return changed ? new Change(maybeAdvanceHighWatermark(), true) : Change.NONE;
    }

    /** How long follower {@code index} has been missing its oldest missing record, in ms. */
    private long lagTimeMs(int index, long nowMs) {
        long end = followerEndOffsets[index];
        return end >= records.size() ? 0 : Math.max(0, nowMs - appendTimesMs[(int) end]);
    }

    /** Moves leadership to {@code brokerId}. Back on this broker, only caught-up followers are in sync. */
    synchronized Change electLeader(int brokerId) {
        if (brokerId == leader) {
            return Change.NONE;
        }
        leader = brokerId;
        if (brokerId == localBrokerId) {
            inSync.clear();
            inSync.add(localBrokerId);
            for (int i = 1; i < replicas.length; i++) {
                if (followerEndOffsets[i] >= records.size()) {
                    inSync.add(replicas[i]);
                }
            }
            maybeAdvanceHighWatermark();
        }
        return new Change(true, true);
    }

    private boolean maybeAdvanceHighWatermark() {
        long min = records.size();
        for (int i = 0; i < replicas.length; i++) {
            if (inSync.contains(replicas[i])) {
                min = Math.min(min, followerEndOffsets[i]);
            }
        }
        if (min > highWatermark) {
            highWatermark = min;
            return true;
        }
        return false;
    }

    /**
     * Kafka's checkEnoughReplicasReachOffset: the error once the produce to {@code requiredOffset}
     * is decided, or null while it must wait.
     */
    synchronized Errors checkEnoughReplicasReachOffset(long requiredOffset) {
        if (leader != localBrokerId) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (highWatermark >= requiredOffset) {
            return inSync.size() < minInsyncReplicas ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND : Errors.NONE;
        }
        return null;
    }

    /** The error a consumer fetch at {@code offset} gets now, or null if it is valid. */
    synchronized Errors fetchError(long offset) {
        if (leader != localBrokerId) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (offset < 0 || offset > records.size()) {
            return Errors.OFFSET_OUT_OF_RANGE;
        }
        return null;
    }

    /** Bytes a consumer can read from {@code offset} up to the high watermark, at most {@code maxBytes}. */
    synchronized long readableBytes(long offset, long maxBytes) {
        if (offset < 0 || offset >= highWatermark) {
            return 0;
        }
        long start = offset == 0 ? 0 : endPositions[(int) offset - 1];
        return Math.min(maxBytes, endPositions[(int) highWatermark - 1] - start);
    }

    /** Reads committed records from {@code offset}: at least one if any, then up to {@code maxBytes}. */
    synchronized List<byte[]> read(long offset, int maxBytes) {
        List<byte[]> out = new ArrayList<>();
        long bytes = 0;
        for (long o = Math.max(0, offset); o < highWatermark; o++) {
            byte[] record = records.get((int) o);
            if (!out.isEmpty() && bytes + record.length > maxBytes) {
                break;
            }
            out.add(record);
            bytes += record.length;
        }
        return out;
    }

    public synchronized long highWatermark() {
        return highWatermark;
    }

    /** Bytes of the committed records (below the high watermark): the position a fetch waits on. */
    public synchronized long committedBytes() {
        return highWatermark == 0 ? 0 : endPositions[(int) highWatermark - 1];
    }

    /** Bytes of the records below {@code offset}, for an offset within the log; else -1. */
    synchronized long bytesBefore(long offset) {
        if (offset < 0 || offset > records.size()) {
            return -1;
        }
        return offset == 0 ? 0 : endPositions[(int) offset - 1];
    }

    public synchronized long logEndOffset() {
        return records.size();
    }

    public synchronized int leader() {
        return leader;
    }

    public synchronized Set<Integer> inSyncReplicas() {
        return Set.copyOf(inSync);
    }

    public synchronized long followerEndOffset(int replica) {
        return followerEndOffsets[replica - localBrokerId];
    }

    public int replicationFactor() {
        return replicas.length;
    }
}
