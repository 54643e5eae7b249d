package io.purgatory;

import io.purgatory.timer.Clock;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a purgatory sweeps its watcher lists, run by the reaper after each advance of the clock.
 * Settled operations leave their lists at once, so a purge only sweeps empty key lists: those each
 * watcher list keeps for reuse (at most once a second: hot keys are re-created a few times a
 * second at most, and lists of keys that never return are gone within about a second) and, once
 * {@code purgeInterval} operations have settled, lingering ones whose key's hashCode or equals
 * threw or changed. Confined to the reaper thread (or a test's).
 */
final class PurgePolicy implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(PurgePolicy.class);
    private static final long EMPTY_KEYS_SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final WatcherList[] lists;
    private final PurgatoryCounters counters;
    private final Clock clock;
    private final int purgeInterval;
    private long settledAtLastPurge;
    private long lastPurgeNanos;

    PurgePolicy(String name, WatcherList[] lists, PurgatoryCounters counters, Clock clock, int purgeInterval) {
        this.name = name;
        this.lists = lists;
        this.counters = counters;
        this.clock = clock;
        this.purgeInterval = purgeInterval;
        this.lastPurgeNanos = clock.nanoTime(); // any reading, negative ones too: elapsed time is a difference
    }

    @Override
    public void run() {
        long now = clock.nanoTime();
        long settled = counters.settledTotal();
        long lingeringLists = counters.lingeringLists();
        boolean lingering = lingeringLists > 0 && settled - settledAtLastPurge >= purgeInterval;
        boolean keptTooLong = counters.emptyLists() - lingeringLists > 0
                && now - lastPurgeNanos >= EMPTY_KEYS_SWEEP_NANOS;
        if (!lingering && !keptTooLong) {
            return;
        }
        settledAtLastPurge = settled;
        lastPurgeNanos = now;
        int purged = 0;
        for (WatcherList list : lists) {
            purged += list.purge();
        }
        counters.purged();
        LOG.debug("Purgatory '{}': purged {} entries", name, purged);
    }
}
