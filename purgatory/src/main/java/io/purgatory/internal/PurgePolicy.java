package io.purgatory.internal;

import io.purgatory.timer.Clock;
import java.util.concurrent.TimeUnit;

/**
 * When a purgatory sweeps its watcher lists, run by the driver after each advance of the clock.
 * Settled operations leave their lists at once, so a purge only sweeps the empty key lists each
 * watcher list keeps for reuse: at most once a second, so that hot keys are re-created a few times
 * a second at most, and lists of keys that never return are gone within about a second.
 * Confined to the driver thread (or a test's).
 */
final class PurgePolicy implements Runnable {

    private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final WatcherList[] lists;
    private final PurgatoryCounters counters;
    private final Clock clock;
    private long lastPurgeNanos;

    PurgePolicy(WatcherList[] lists, PurgatoryCounters counters, Clock clock) {
        this.lists = lists;
        this.counters = counters;
        this.clock = clock;
        this.lastPurgeNanos = clock.nanoTime(); // any reading, negative ones too: elapsed time is a difference
    }

    @Override
    public void run() {
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
}
