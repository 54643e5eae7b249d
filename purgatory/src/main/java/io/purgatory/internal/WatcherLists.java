package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;

/**
 * An engine's watcher lists: a fixed, power-of-two number of them, each guarding the watch lists
 * of the keys whose mixed hash picks it, so that checks of keys on different lists never contend.
 * The array is fixed at build; what the lists hold is guarded by each list's own lock.
 */
final class WatcherLists {

    private final WatcherList[] lists;
    /** Shift taking a list's index from the top bits of a key's mixed hash (see index). */
    private final int shift;

    /** {@code count} lists (a power of two) of operations owned by {@code owner}, counted in {@code counters}. */
    WatcherLists(int count, Owner owner, PurgatoryCounters counters, java.util.function.LongSupplier clock) {
        this.lists = new WatcherList[count];
        this.shift = 32 - Integer.numberOfTrailingZeros(count);
        for (int i = 0; i < count; i++) {
            lists[i] = new WatcherList(owner, counters, clock);
        }
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
        int mixed = key.hashCode() * 0x9E3779B9;
        return shift == 32 ? 0 : mixed >>> shift;
    }

    /** Every list, for a sweep: the array itself, not to be changed. */
    WatcherList[] all() {
        return lists;
    }

    /** Checks every list's invariants and {@code counters}' gauges against them (tests, in quiescence). */
    void checkInvariants(PurgatoryCounters counters) {
        long linked = 0;
        long keys = 0;
        for (WatcherList list : lists) {
            long[] counts = list.checkInvariants();
            linked += counts[0];
            keys += counts[1];
        }
        if (linked != counters.entries() || keys != counters.keys()) {
            throw new IllegalStateException("(C2, C3) gauges disagree with the lists: entries " + counters.entries()
                    + " vs " + linked + " linked; keys " + counters.keys() + " vs " + keys);
        }
    }
}
