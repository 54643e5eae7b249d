package io.purgatory;

import java.util.concurrent.atomic.LongAdder;

/** The purgatory's counters: cheap to bump on hot paths, O(1) to read (sum over at most #CPU cells). */
final class PurgatoryCounters {

    final LongAdder pending = new LongAdder();
    final LongAdder watched = new LongAdder();
    final LongAdder keys = new LongAdder();
    final LongAdder lingeringKeys = new LongAdder();
    /** Emptied key lists kept for reuse (WatcherList S1). */
    final LongAdder emptyKeys = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder completedAtOnce = new LongAdder();
    final LongAdder expired = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder purges = new LongAdder();
    final LongAdder[] callbackErrors = new LongAdder[OperationErrorHandler.Callback.values().length];

    PurgatoryCounters() {
        for (int i = 0; i < callbackErrors.length; i++) {
            callbackErrors[i] = new LongAdder();
        }
    }

    /** The settled count, by outcome. */
    LongAdder settled(Outcome outcome) {
        return switch (outcome) {
            case COMPLETED -> completed;
            case EXPIRED -> expired;
            case CANCELLED -> cancelled;
        };
    }

    long callbackErrorTotal() {
        long total = 0;
        for (LongAdder a : callbackErrors) {
            total += a.sum();
        }
        return total;
    }

    long settledTotal() {
        return completed.sum() + expired.sum() + cancelled.sum();
    }

    static int toInt(LongAdder adder) {
        long v = adder.sum();
        return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(v, 0);
    }
}
