package io.purgatory.timer;

import java.util.function.Consumer;

/**
 * Cascading ahead: moving the tasks of each coarser level's next bucket down to the finer levels
 * before the bucket is due, so that its due time finds little or nothing to re-add. Under load the
 * moves are spread evenly over the time the bucket is next; while nothing is due they go as fast
 * as they can. The work is the same as cascading when due, moved earlier. Stateless.
 *
 * <p>Not thread-safe: confined to the driver of the owning {@link TimerEngine}.
 */
final class EarlyCascade {

    /*
     * Implementation notes.
     *
     * (A1) A coarser level's next bucket (vid current/tick + 1, due at s) may be cascaded from
     *      s - lead (TimingWheel.leadMs; a whole tick for wheels of 4 buckets or more): from then
     *      on every deadline in it fits the finer levels, so re-adding a task places it on a finer
     *      level, by its own deadline (never early: the finest level rounds up), and no add can
     *      land in the bucket any more. Its tasks are taken in position order, each once; the
     *      bucket stays queued and is flushed when due, like any other, for what is left. So
     *      cascading ahead moves work earlier and never delays a task.
     * (A2) Paced (the driver after a turn that expired something): the bucket's positions are
     *      moved on a schedule that is linear in time from s - lead (none moved) to one finest
     *      tick before s (all of them), catching up on what is behind it. Idle (nothing due): up
     *      to a batch at a time, whatever the schedule, the driver checking for due work between
     *      batches. The positions are what was appended since the bucket was emptied: an upper
     *      bound of its tasks, cancelled ones being holes, so the schedule never falls behind.
     */

    private EarlyCascade() {
    }

    /**
     * One step of cascading ahead on the wheel whose finest level is {@code finest}, at its current
     * time: on each coarser level whose next bucket is within its lead, moves up to
     * {@code maxTasks} of its tasks through {@code reinsert}: those behind schedule if
     * {@code paced}, else the next ones. Returns how many tasks it moved.
     */
    static int step(TimingWheel finest, int maxTasks, boolean paced, Consumer<TimerEntry> reinsert) {
        long nowMs = finest.currentTimeMs();
        int moved = 0;
        for (TimingWheel w = finest.overflow(); w != null && moved < maxTasks; w = w.overflow()) {
            TimerTaskList next = w.bucketAhead(1);
            if (next == null) {
                continue;
            }
            long dueMs = next.expirationMs();
            long startMs = dueMs - w.leadMs();
            if (nowMs < startMs || startMs >= dueMs) {
                continue; // (A1): not within its lead yet, or a level with none
            }
            int toPosition = paced ? scheduled(next, nowMs + finest.tickMs() - startMs, dueMs - startMs)
                    : next.end();
            toPosition = Math.min(toPosition, next.head() + (maxTasks - moved));
            if (toPosition > next.head()) {
                moved += next.drainTo(toPosition, reinsert);
            }
        }
        return moved;
    }

    /** The position the schedule (A2) has reached after {@code elapsedMs} of {@code leadMs}. */
    private static int scheduled(TimerTaskList bucket, long elapsedMs, long leadMs) {
        if (elapsedMs >= leadMs) {
            return bucket.end();
        }
        return (int) Math.min(bucket.end(), (long) Math.ceil(bucket.end() * ((double) elapsedMs / leadMs)));
    }

    /**
     * The earliest time at which a coarser level of {@code finest}'s wheel may have a bucket to
     * cascade ahead: its next bucket's lead start, or, if that one is empty, the start of the next
     * tick, when the one after it becomes next. Long.MAX_VALUE if no level has either.
     */
    static long nextStartMs(TimingWheel finest) {
        long startMs = Long.MAX_VALUE;
        for (TimingWheel w = finest.overflow(); w != null; w = w.overflow()) {
            TimerTaskList next = w.bucketAhead(1);
            if (next != null) {
                startMs = Math.min(startMs, next.expirationMs() - w.leadMs());
            } else if (w.bucketAhead(2) != null) {
                long afterMs = w.bucketAhead(2).expirationMs();
                startMs = Math.min(startMs, Math.max(afterMs - w.tickMs(), afterMs - w.leadMs()));
            }
        }
        return startMs;
    }
}
