package io.purgatory;

import java.util.concurrent.atomic.LongAdder;

/**
 * The purgatory's counters: cheap to bump on hot paths, O(1) to read (a few sums over at most
 * #CPU cells each). The gauges are derived, so that the common transitions bump one adder.
 */
final class PurgatoryCounters {

    /*
     * Implementation notes.
     *
     * (C1) pending = watchedOps - (completed + expired + cancelled): those three count the
     *      settles of watched operations only; settles before the watch have counters of their
     *      own. Watching an operation and settling it then bump one adder each.
     * (C2) watched = pending + extraWatches, where extraWatches sums (entries linked - 1) over the
     *      pending operations, less the entries a purge unlinked: a single-key operation never
     *      touches it.
     * (C3) keys = mappedKeys - emptyKeys: emptyKeys counts the empty lists still in the shards'
     *      maps, kept for reuse or lingering (WatcherList S1), lingeringKeys the latter alone. A
     *      list emptying or filling again then bumps one adder.
     * Sums taken while others update may be momentarily off by the updates in flight (as any
     * LongAdder sum); the readers clamp at 0. In quiescence they are exact (checkInvariants).
     */

    final LongAdder watchedOps = new LongAdder();
    final LongAdder extraWatches = new LongAdder();
    final LongAdder mappedKeys = new LongAdder();
    final LongAdder emptyKeys = new LongAdder();
    final LongAdder lingeringKeys = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder expired = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder completedAtOnce = new LongAdder();
    final LongAdder expiredUnwatched = new LongAdder();
    final LongAdder cancelledUnwatched = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder purges = new LongAdder();
    final LongAdder expirationsRefused = new LongAdder();
    final LongAdder[] callbackErrors = new LongAdder[OperationErrorHandler.Callback.values().length];

    PurgatoryCounters() {
        for (int i = 0; i < callbackErrors.length; i++) {
            callbackErrors[i] = new LongAdder();
        }
    }

    /** The settles of watched operations, by outcome (C1). */
    LongAdder settled(Outcome outcome) {
        return switch (outcome) {
            case COMPLETED -> completed;
            case EXPIRED -> expired;
            case CANCELLED -> cancelled;
        };
    }

    /** The settles of operations never watched, by outcome. */
    LongAdder settledUnwatched(Outcome outcome) {
        return switch (outcome) {
            case COMPLETED -> completedAtOnce;
            case EXPIRED -> expiredUnwatched;
            case CANCELLED -> cancelledUnwatched;
        };
    }

    /** Operations watched and not yet settled (C1). */
    long pending() {
        return watchedOps.sum() - completed.sum() - expired.sum() - cancelled.sum();
    }

    /** Watch entries (C2). */
    long watched() {
        return pending() + extraWatches.sum();
    }

    /** Keys with a non-empty list (C3). */
    long keys() {
        return mappedKeys.sum() - emptyKeys.sum();
    }

    long callbackErrorTotal() {
        long total = 0;
        for (LongAdder a : callbackErrors) {
            total += a.sum();
        }
        return total;
    }

    /** Every settle so far, watched or not. */
    long settledTotal() {
        return completed.sum() + expired.sum() + cancelled.sum()
                + completedAtOnce.sum() + expiredUnwatched.sum() + cancelledUnwatched.sum();
    }

    static int toInt(long v) {
        return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(v, 0);
    }
}
