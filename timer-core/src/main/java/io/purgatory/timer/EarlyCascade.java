package io.purgatory.timer;

import java.util.Queue;
import java.util.function.Consumer;

/**
 * Cascading ahead for one coarser level of a {@link TimingWheel}: the level's next bucket is moved
 * down to the finer levels a batch at a time while nothing is due, before it falls due, so that
 * little is left to re-add at its due time. The work is bounded by the tasks of the buckets within
 * their lead, so an idle wheel stays idle.
 *
 * <p>Not thread-safe: confined to the driver of the owning {@link TimerEngine}.
 */
final class EarlyCascade {

    /*
     * Implementation notes.
     *
     * (A1) A coarser level's next bucket (vid current/tick + 1) may be cascaded early, in passes.
     *      A pass takes the bucket out of the queue, moves its tasks whole into the level's early
     *      list, which is queued in its place with the same expiration, and the driver re-adds
     *      them from the finest level a batch at a time while nothing is due (step). Re-adding at
     *      the current time never places a task before its deadline (add works from the current
     *      time). The early list holds one vid, so the wheel's bucket invariants (but for the
     *      bucket index) hold for it, and the bucket queue flushes whatever is left of it when
     *      due, like a bucket: cascading ahead moves work earlier and never delays a task.
     * (A2) The early list is queued iff it has an expiration, and that expiration is the last one
     *      cascaded early (cascadedMs).
     * (A3) The first pass may start LEAD = tick / 8 before the bucket is due, each next one once
     *      the time left has halved (cascadedMs, passMs): at most log2(tick / 8) + 1 passes
     *      re-add about 1.25 times the bucket, and leave to the due time only the deadlines
     *      >= due + tick - 1 instead of all of them.
     */

    /** A coarser bucket may be cascaded from tickMs >> LEAD_SHIFT before it is due (A3). */
    static final int LEAD_SHIFT = 3;
    /** How many buckets past the current one startMs looks at. */
    private static final int LOOKAHEAD = 4;

    private final TimingWheel level;
    private final Queue<TimerTaskList> queue;
    private final TimerTaskList early;
    private final long leadMs;
    /** The expiration of the last bucket of this level cascaded early, and when its last pass began (A3). */
    private long cascadedMs = TimerTaskList.NONE;
    private long passMs;

    EarlyCascade(TimingWheel level, Queue<TimerTaskList> queue) {
        this.level = level;
        this.queue = queue;
        this.early = new TimerTaskList(level.tickMs());
        this.leadMs = level.tickMs() >> LEAD_SHIFT;
    }

    /**
     * One step of cascading ahead on the wheel whose finest level is {@code finest}, while nothing
     * is due: re-adds up to {@code maxTasks} tasks of the early list due first through
     * {@code reinsert}, starting the cascade of a coarser level's next bucket if it is within its
     * lead. Returns false iff there was nothing to do.
     */
    static boolean step(TimingWheel finest, int maxTasks, Consumer<TimerTask> reinsert) {
        EarlyCascade chosen = null;
        long chosenDueMs = 0;
        long nowMs = finest.currentTimeMs();
        for (TimingWheel w = finest.overflow(); w != null; w = w.overflow()) {
            long dueMs = w.earlyCascade().dueMs(nowMs);
            if (dueMs != TimerTaskList.NONE && (chosen == null || dueMs <= chosenDueMs)) {
                chosen = w.earlyCascade(); // the coarser on a tie: its tasks may land in the finer one's bucket
                chosenDueMs = dueMs;
            }
        }
        if (chosen == null) {
            return false;
        }
        TimerTaskList list = chosen.start(nowMs);
        for (int i = 0; i < maxTasks; i++) {
            TimerTask task = list.poll();
            if (task == null) {
                break;
            }
            reinsert.accept(task);
        }
        if (list.isEmpty()) {
            chosen.queue.remove(list);
            list.setExpiration(TimerTaskList.NONE); // (A2)
        }
        return true;
    }

    /**
     * The earliest time at which a coarser level of {@code finest}'s wheel may have early work;
     * Long.MAX_VALUE if none in the next few buckets of each level. The driver wakes then, so
     * cascading ahead also happens when nothing finer is due.
     */
    static long nextStartMs(TimingWheel finest) {
        long startMs = Long.MAX_VALUE;
        for (TimingWheel w = finest.overflow(); w != null; w = w.overflow()) {
            startMs = Math.min(startMs, w.earlyCascade().startMs());
        }
        return startMs;
    }

    /** The early list (for visits and checks). */
    TimerTaskList list() {
        return early;
    }

    /** When this level's early work falls due, if it has any at {@code nowMs}; else NONE. */
    private long dueMs(long nowMs) {
        if (early.expirationMs() != TimerTaskList.NONE) {
            return early.expirationMs();
        }
        TimerTaskList next = level.bucketAhead(1);
        if (next == null || nowMs - passStartMs(next.expirationMs()) < 0) {
            return TimerTaskList.NONE;
        }
        return next.expirationMs();
    }

    /** When the next pass over the bucket due at {@code dueMs} may begin (A3); dueMs if none may. */
    private long passStartMs(long dueMs) {
        if (dueMs != cascadedMs) {
            return dueMs - leadMs;
        }
        return dueMs - (dueMs - passMs) / 2; // the time left has halved
    }

    /** Returns the early list, first moving the next bucket into it if it is not in progress (A1). */
    private TimerTaskList start(long nowMs) {
        if (early.expirationMs() == TimerTaskList.NONE) {
            TimerTaskList next = level.bucketAhead(1);
            queue.remove(next); // unqueued before its expiration moves
            next.moveAllTo(early);
            cascadedMs = early.expirationMs();
            passMs = nowMs;
            queue.offer(early); // (A2)
        }
        return early;
    }

    private long startMs() {
        if (early.expirationMs() != TimerTaskList.NONE) {
            return early.expirationMs() - leadMs;
        }
        for (int ahead = 1; ahead <= LOOKAHEAD && ahead < level.wheelSize(); ahead++) {
            TimerTaskList bucket = level.bucketAhead(ahead);
            if (bucket != null && passStartMs(bucket.expirationMs()) != bucket.expirationMs()) {
                return passStartMs(bucket.expirationMs());
            }
        }
        return Long.MAX_VALUE;
    }

    /** Checks (A2). */
    void checkInvariants() {
        if (early.expirationMs() != TimerTaskList.NONE && early.expirationMs() != cascadedMs) {
            throw new IllegalStateException("(A2) early list " + early + " is not the last cascaded early: "
                    + cascadedMs);
        }
        if ((early.expirationMs() != TimerTaskList.NONE) != queue.contains(early)) {
            throw new IllegalStateException("(A2) early list queued iff it has an expiration: " + early);
        }
    }
}
