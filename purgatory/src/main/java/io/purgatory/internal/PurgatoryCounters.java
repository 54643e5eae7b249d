package io.purgatory.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * A purgatory's counters: one adder bumped per event on the hot paths, O(1) to read (a few sums
 * over at most #CPU cells each). The gauges are derived from the event counts.
 */
public final class PurgatoryCounters {

    /*
     * Implementation notes.
     *
     * (C1) pending = watched - (completed + expired + cancelled): the three count the settles of
     *      watched operations only; settles before the watch have counters of their own.
     * (C2) entries = pending + extraEntries, where extraEntries sums (keys - 1) over the pending
     *      operations: a single-key operation never touches it.
     * (C3) keys = keyLists - emptyLists: emptyLists counts the empty lists still in the shards'
     *      maps (WatcherList K5).
     * Sums taken while others update may be momentarily off by the updates in flight (as any
     * LongAdder sum); the readers clamp at 0. In quiescence they are exact.
     */

    private final LongAdder watched = new LongAdder();
    private final LongAdder extraEntries = new LongAdder();
    private final LongAdder keyLists = new LongAdder();
    private final LongAdder emptyLists = new LongAdder();
    /** Indexed by outcome code - 1. */
    private final LongAdder[] settledWatched = adders(3);
    private final LongAdder[] settledUnwatched = adders(3);
    private final LongAdder rejected = new LongAdder();
    /** Of those, the refusals at a tenant's bound. */
    private final LongAdder rejectedForTenant = new LongAdder();
    private final LongAdder purges = new LongAdder();
    private final LongAdder[] callbackErrors = adders(UserCode.CALLBACKS);

    // ---- events ----

    /** An operation is watched on {@code keys} keys (C1, C2). */
    void watched(int keys) {
        watched.increment();
        add(extraEntries, keys - 1);
    }

    /** A watched operation's submission was undone: it is no longer watched on its {@code keys} keys. */
    void unwatched(int keys) {
        watched.decrement();
        add(extraEntries, 1 - keys);
    }

    /** An operation is settled with {@code outcome}; {@code keys} entries were unlinked if it was watched (C1, C2). */
    void settled(int outcome, boolean wasWatched, int keys) {
        (wasWatched ? settledWatched : settledUnwatched)[outcome - 1].increment();
        if (wasWatched && keys != 1) {
            extraEntries.add(1 - keys);
        }
    }

    /**
     * The key lists in the shards' maps changed by {@code mapped}, the empty ones among them by
     * {@code empty} (C3): a key got a list (1, 0); an empty one got an operation again (0, -1); a
     * list emptied and stays mapped (0, 1) or left the map (-1, 0); a purge swept one (-1, -1).
     */
    void keyListsChanged(int mapped, int empty) {
        add(keyLists, mapped);
        add(emptyLists, empty);
    }

    void purged() {
        purges.increment();
    }

    void rejected() {
        rejected.increment();
    }

    void rejectedForTenant() {
        rejected.increment();
        rejectedForTenant.increment();
    }

    void callbackFailed(int callback) {
        callbackErrors[callback].increment();
    }

    // ---- reads, O(1) ----

    /** Operations watched and not yet settled (C1), as a gauge. */
    public int pending() {
        return toInt(pendingSum());
    }

    /** Watch entries (C2), as a gauge. */
    public int entries() {
        return toInt(pendingSum() + extraEntries.sum());
    }

    /** Keys with a non-empty list (C3), as a gauge. */
    public int keys() {
        return toInt(keyLists.sum() - emptyLists.sum());
    }

    private long pendingSum() {
        return watched.sum() - settledWatched[0].sum() - settledWatched[1].sum() - settledWatched[2].sum();
    }

    /** Empty lists still mapped (C3). */
    public long emptyLists() {
        return emptyLists.sum();
    }

    /** Settles with outcome code {@code outcome}, watched or not. */
    public long settled(int outcome) {
        return settledWatched[outcome - 1].sum() + settledUnwatched[outcome - 1].sum();
    }

    /** Completions by the first try, never watched. */
    public long completedAtOnce() {
        return settledUnwatched[OperationState.COMPLETED - 1].sum();
    }

    /** Completions of watched operations. */
    public long completedWatched() {
        return settledWatched[OperationState.COMPLETED - 1].sum();
    }

    /** Submissions refused for capacity: the purgatory's or a tenant's. */
    public long rejectedCount() {
        return rejected.sum();
    }

    /** Submissions refused at their tenant's bound (among {@link #rejectedCount()}). */
    public long rejectedForTenantCount() {
        return rejectedForTenant.sum();
    }

    /** Purges run. */
    public long purgeCount() {
        return purges.sum();
    }

    /** Failures of callback {@code callback} (UserCode's codes). */
    public long callbackErrors(int callback) {
        return callbackErrors[callback].sum();
    }

    /** Failures of every callback. */
    public long callbackErrorTotal() {
        return Arrays.stream(callbackErrors).mapToLong(LongAdder::sum).sum();
    }

    /** Adds {@code delta} to {@code adder}, unless it is 0: an adder no event changes is never written. */
    private static void add(LongAdder adder, long delta) {
        if (delta != 0) {
            adder.add(delta);
        }
    }

    /** {@code v} as an int gauge: clamped to 0 and Integer.MAX_VALUE. */
    private static int toInt(long v) {
        return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(v, 0);
    }

    private static LongAdder[] adders(int n) {
        return Stream.generate(LongAdder::new).limit(n).toArray(LongAdder[]::new);
    }
}
