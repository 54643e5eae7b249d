package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.timer.Clock;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An engine's watcher lists: a fixed, power-of-two number of them, each guarding the watch lists
 * of the keys whose mixed hash picks it, so that checks of keys on different lists never contend.
 * The array is fixed at build; what the lists hold is guarded by each list's own lock. It also
 * decides when they are swept ({@link #purgeIfNeeded}).
 */
final class WatcherLists {

    private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final WatcherList[] lists;
    /** Shift taking a list's index from the top bits of a key's mixed hash (see index). */
    private final int shift;
    private final PurgatoryCounters counters;
    /** The clock the purges are timed by. */
    private final Clock clock;
    /** When the last purge ran; confined to the driver thread (or a test's). */
    private long lastPurgeNanos;

    /**
     * {@code count} lists (a power of two) of operations owned by {@code owner}, counted in
     * {@code counters}, keys activated at the times {@code now} reads; purged by {@code clock}.
     */
    WatcherLists(int count, Owner owner, PurgatoryCounters counters, LongSupplier now, Clock clock) {
        this.lists = new WatcherList[count];
        this.shift = 32 - Integer.numberOfTrailingZeros(count);
        for (int i = 0; i < count; i++) {
            lists[i] = new WatcherList(owner, counters, now);
        }
        this.counters = counters;
        this.clock = clock;
        this.lastPurgeNanos = clock.nanoTime(); // any reading, negative ones too: elapsed time is a difference
    }

    /** The list of {@code key}. */
    WatcherList of(Object key) {
        return lists[index(key)];
    }

    /**
     * The index of {@code key}'s list: the top bits of its hash times the golden ratio. Not the low
     * bits a HashMap takes for its buckets: keys sharing a list would then share the bucket bits
     * too, and each list's map would fall into a few long (tree) buckets.
     */
    int index(Object key) {
        return (int) (Integer.toUnsignedLong(key.hashCode() * 0x9E3779B9) >>> shift); // a shift of 32 (one list): 0
    }

    /** Every list, for a sweep: the array itself, not to be changed. */
    WatcherList[] all() {
        return lists;
    }

    /**
     * Sweeps the lists, run by the driver after each advance of the clock. Settled operations
     * leave their lists at once, so a purge only sweeps the empty key lists each watcher list
     * keeps for reuse: at most once a second, so that hot keys are re-created a few times a second
     * at most, and lists of keys that never return are gone within about a second.
     */
    void purgeIfNeeded() {
        long now = clock.nanoTime();
        if (counters.emptyLists() <= 0 || now - lastPurgeNanos < SWEEP_NANOS) {
            return;
        }
        lastPurgeNanos = now;
        for (WatcherList list : lists) {
            list.purge();
        }
        counters.purged();
    }

    /** Checks every list's invariants and the counters' gauges against them (tests, in quiescence). */
    void checkInvariants() {
        long[] totals = new long[2]; // {linked elements, non-empty keys}
        for (WatcherList list : lists) {
            list.checkInvariants(totals);
        }
        if (totals[0] != counters.entries() || totals[1] != counters.keys()) {
            throw new IllegalStateException("(C2, C3) gauges disagree with the lists: entries " + counters.entries()
                    + " vs " + totals[0] + " linked; keys " + counters.keys() + " vs " + totals[1]);
        }
    }
}
