package io.purgatory.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides where the feed reads each partition from. A partition waits here, pending, until the
 * broker has told the offset of its first record at the partition's read-back time (F1); only then
 * is it assigned to the consumer, in the same step as its seek (F3). A failed lookup leaves its
 * partitions pending and is tried again after the backoff. Used by the feed's thread only.
 */
final class Positioner {

    /** Where a partition is read from, and the end it had just before (its read-back ends there). */
    private record Start(long offset, long end) {
    }

    private final Consumer<byte[], byte[]> consumer;
    private final TopicAdmin admin;
    private final LagTracker lag;
    private final FeedErrors errors;
    private final long retryNanos;
    private final long foundFromMs;
    private final Map<TopicPartition, Long> pending = new HashMap<>(); // partition -> read from this time (ms)
    private final Map<TopicPartition, Long> readBackEnds = new HashMap<>();
    private CompletableFuture<Map<TopicPartition, Start>> lookup;
    private Set<TopicPartition> lookingUp = Set.of();
    private long retryAtNanos;

    /**
     * A positioner that reads the partitions it is told of from {@code foundFromMs} on (the feed's
     * start minus its read-back: a partition added later is read from its first record).
     */
    Positioner(Consumer<byte[], byte[]> consumer, TopicAdmin admin, LagTracker lag, FeedErrors errors,
               long retryNanos, long foundFromMs) {
        this.consumer = consumer;
        this.admin = admin;
        this.lag = lag;
        this.errors = errors;
        this.retryNanos = retryNanos;
        this.foundFromMs = foundFromMs;
    }

    /** The topic's partitions, as the broker told them: those neither read nor pending yet become pending. */
    void found(Collection<TopicPartition> partitions) {
        Set<TopicPartition> assigned = consumer.assignment();
        for (TopicPartition partition : partitions) {
            if (!assigned.contains(partition)) {
                pending.putIfAbsent(partition, foundFromMs);
            }
        }
    }

    /**
     * Partitions whose position the broker no longer has (records deleted, a truncated log): they
     * leave the consumer's assignment and are positioned again from {@code timestampMs} (F3).
     */
    void lost(Collection<TopicPartition> partitions, long timestampMs) {
        Set<TopicPartition> kept = new HashSet<>(consumer.assignment());
        Set<TopicPartition> removed = new HashSet<>(partitions);
        removed.retainAll(kept);
        kept.removeAll(removed);
        consumer.assign(kept); // first: if it throws, nothing here has changed
        for (TopicPartition partition : removed) {
            pending.put(partition, timestampMs);
            readBackEnds.remove(partition);
            lag.forget(partition);
        }
    }

    /** Sends the lookup of the pending partitions when due, and positions them once it is answered. */
    void step(long nowNanos) {
        if (lookup == null) {
            if (!pending.isEmpty() && nowNanos - retryAtNanos >= 0) {
                send();
            }
            return;
        }
        if (!lookup.isDone()) {
            return;
        }
        CompletableFuture<Map<TopicPartition, Start>> answered = lookup;
        lookup = null;
        Set<TopicPartition> partitions = lookingUp;
        lookingUp = Set.of();
        Map<TopicPartition, Start> starts;
        try {
            starts = answered.join();
        } catch (RuntimeException e) {
            retryAtNanos = nowNanos + retryNanos; // (F3) they stay pending, unassigned
            errors.consumer("could not look up where to read " + partitions + " from; it retries in "
                    + TimeUnit.NANOSECONDS.toMillis(retryNanos) + " ms", e);
            return;
        }
        assignAndSeek(starts);
    }

    /** Whether every partition found is assigned and positioned. */
    boolean allPositioned() {
        return pending.isEmpty();
    }

    /** Whether a partition has yet to read back to the end it had when it was positioned. */
    boolean readingBack(Function<TopicPartition, OptionalLong> position) {
        readBackEnds.entrySet().removeIf(end -> {
            OptionalLong at = position.apply(end.getKey());
            return at.isPresent() && at.getAsLong() >= end.getValue();
        });
        return !readBackEnds.isEmpty();
    }

    /** Checks the invariants: no partition both assigned and pending, none read back unassigned (F3). */
    void checkInvariants() {
        Set<TopicPartition> assigned = consumer.assignment();
        for (TopicPartition partition : pending.keySet()) {
            if (assigned.contains(partition)) {
                throw new AssertionError("assigned and pending: " + partition);
            }
        }
        if (!assigned.containsAll(readBackEnds.keySet())) {
            throw new AssertionError("reading back unassigned partitions: " + readBackEnds.keySet());
        }
        if (!pending.keySet().containsAll(lookingUp)) {
            throw new AssertionError("looking up partitions that are not pending: " + lookingUp);
        }
    }

    /** Looks up the end offsets, then the offsets at each partition's time (F1: in that order). */
    private void send() {
        Map<TopicPartition, Long> times = Map.copyOf(pending);
        lookingUp = times.keySet();
        lookup = admin.endOffsets(times.keySet()).thenCompose(ends -> admin.offsetsForTimes(times).thenApply(found -> {
            Map<TopicPartition, Start> starts = new HashMap<>();
            ends.forEach((partition, end) -> starts.put(partition, new Start(found.getOrDefault(partition, end), end)));
            return starts;
        }));
    }

    /**
     * Adds the looked-up partitions to the assignment and seeks them, or, if that fails, restores
     * the assignment as it was: a partition is never assigned without its position (F3).
     */
    private void assignAndSeek(Map<TopicPartition, Start> starts) {
        Set<TopicPartition> before = consumer.assignment();
        Set<TopicPartition> after = new HashSet<>(before);
        after.addAll(starts.keySet());
        try {
            consumer.assign(after);
            starts.forEach((partition, start) -> consumer.seek(partition, start.offset()));
        } catch (RuntimeException e) {
            consumer.assign(before);
            throw e;
        }
        starts.forEach((partition, start) -> {
            pending.remove(partition);
            lag.positioned(partition, start.end() - start.offset());
            if (start.offset() < start.end()) {
                readBackEnds.put(partition, start.end());
            }
            FeedLoop.LOG.debug("Feed reads {} from offset {}", partition, start.offset());
        });
    }

}
