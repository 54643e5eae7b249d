package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import java.util.concurrent.atomic.LongAdder;

/**
 * A purgatory's counters: one adder bumped per event on the hot paths, O(1) to read (a few sums
 * over at most #CPU cells each). The gauges are derived from the event counts.
 */
final class PurgatoryCounters {

    /*
     * Implementation notes.
     *
     * (C1) pending = watched - (completed + expired + cancelled): the three count the settles of
     *      watched operations only; settles before the watch have counters of their own.
     * (C2) entries = pending + extraEntries, where extraEntries sums (keys - 1) over the pending
     *      operations: a single-key operation never touches it.
     * (C3) keys = keyLists - emptyLists: emptyLists counts the empty lists still in the shards'
     *      maps (kept for reuse, or lingering because a key's removal failed), lingeringLists the latter alone.
     * Sums taken while others update may be momentarily off by the updates in flight (as any
     * LongAdder sum); the readers clamp at 0. In quiescence they are exact.
     */

    private final LongAdder watched = new LongAdder();
    private final LongAdder extraEntries = new LongAdder();
    private final LongAdder keyLists = new LongAdder();
    private final LongAdder emptyLists = new LongAdder();
    private final LongAdder lingeringLists = new LongAdder();
    private final LongAdder[] settledWatched = adders(Outcome.values().length);
    private final LongAdder[] settledUnwatched = adders(Outcome.values().length);
    private final LongAdder rejected = new LongAdder();
    private final LongAdder purges = new LongAdder();
    private final LongAdder expirationsRefused = new LongAdder();
    private final LongAdder[] callbackErrors = adders(Callback.values().length);

    // ---- events ----

    /** An operation is watched on {@code keys} keys (C1, C2). */
    void watched(int keys) {
        watched.increment();
        if (keys != 1) {
            extraEntries.add(keys - 1);
        }
    }

    /** A watched operation's submission was undone: it is no longer watched on its {@code keys} keys. */
    void unwatched(int keys) {
        watched.decrement();
        if (keys != 1) {
            extraEntries.add(1 - keys);
        }
    }

    /** An operation is settled; {@code keys} entries were unlinked if it was watched (C1, C2). */
    void settled(Outcome outcome, boolean wasWatched, int keys) {
        if (!wasWatched) {
            settledUnwatched[outcome.ordinal()].increment();
            return;
        }
        settledWatched[outcome.ordinal()].increment();
        if (keys != 1) {
            extraEntries.add(1 - keys);
        }
    }

    /** A key got a list (C3). */
    void keyListAdded() {
        keyLists.increment();
    }

    /** A key's list emptied and stays mapped: kept for reuse, or lingering if its removal failed (C3). */
    void keyListEmptied(boolean lingering) {
        emptyLists.increment();
        if (lingering) {
            lingeringLists.increment();
        }
    }

    /** An empty list still mapped got an operation again (C3). */
    void keyListRefilled(boolean wasLingering) {
        emptyLists.decrement();
        if (wasLingering) {
            lingeringLists.decrement();
        }
    }

    /** A key's list left the map on its last unwatch (C3). */
    void keyListRemoved() {
        keyLists.decrement();
    }

    /** A purge swept an empty list from the map: one kept for reuse, or a lingering one (C3). */
    void keyListSwept(boolean lingering) {
        keyLists.decrement();
        emptyLists.decrement();
        if (lingering) {
            lingeringLists.decrement();
        }
    }

    void purged() {
        purges.increment();
    }

    void rejected() {
        rejected.increment();
    }

    void expirationRefused() {
        expirationsRefused.increment();
    }

    void callbackFailed(Callback callback) {
        callbackErrors[callback.ordinal()].increment();
    }

    // ---- reads, O(1) ----

    /** Operations watched and not yet settled (C1). */
    long pending() {
        return watched.sum() - settledWatched[0].sum() - settledWatched[1].sum() - settledWatched[2].sum();
    }

    /** Watch entries (C2). */
    long entries() {
        return pending() + extraEntries.sum();
    }

    /** Keys with a non-empty list (C3). */
    long keys() {
        return keyLists.sum() - emptyLists.sum();
    }

    /** Empty lists still mapped, kept or lingering (C3). */
    long emptyLists() {
        return emptyLists.sum();
    }

    long lingeringLists() {
        return lingeringLists.sum();
    }

    /** Settles of {@code outcome}, watched or not. */
    long settled(Outcome outcome) {
        return settledWatched[outcome.ordinal()].sum() + settledUnwatched[outcome.ordinal()].sum();
    }

    long completedAtOnce() {
        return settledUnwatched[Outcome.COMPLETED.ordinal()].sum();
    }

    /** Completions of watched operations. */
    long completedWatched() {
        return settledWatched[Outcome.COMPLETED.ordinal()].sum();
    }

    /** Every settle so far, watched or not. */
    long settledTotal() {
        long total = 0;
        for (Outcome outcome : Outcome.values()) {
            total += settled(outcome);
        }
        return total;
    }

    long rejectedCount() {
        return rejected.sum();
    }

    long purgeCount() {
        return purges.sum();
    }

    long expirationsRefusedCount() {
        return expirationsRefused.sum();
    }

    long callbackErrors(Callback callback) {
        return callbackErrors[callback.ordinal()].sum();
    }

    long callbackErrorTotal() {
        long total = 0;
        for (LongAdder a : callbackErrors) {
            total += a.sum();
        }
        return total;
    }

    /** A snapshot for {@code stats()}; each read O(1). */
    PurgatoryStats snapshot(String name) {
        return new PurgatoryStats(name, toInt(pending()), toInt(entries()), toInt(keys()), completedWatched(),
                completedAtOnce(), settled(Outcome.EXPIRED), settled(Outcome.CANCELLED), callbackErrorTotal(),
                rejectedCount(), purgeCount(), expirationsRefusedCount());
    }

    static int toInt(long v) {
        return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(v, 0);
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] adders = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }
}
