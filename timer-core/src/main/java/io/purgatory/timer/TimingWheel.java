package io.purgatory.timer;

import java.util.Queue;
import java.util.function.Consumer;

/**
 * One level of a hierarchical timing wheel: {@code wheelSize} buckets of {@code tickMs} each,
 * spanning {@code interval = tickMs * wheelSize}, with a coarser overflow wheel created on demand
 * for deadlines beyond that span. Add is O(levels); the clock advances in whole ticks.
 *
 * <p>Not thread-safe: confined to the driver of the owning {@link TimerEngine}.
 */
final class TimingWheel {

    /*
     * Implementation notes.
     *
     * Varghese & Lauck, "Hashed and Hierarchical Timing Wheels" (1987), as Kafka applies it: the
     * wheel does not tick; full buckets are put in a priority queue by expiration and the driver
     * jumps to the earliest one. Times are milliseconds relative to the engine's origin, so they
     * are >= 0 and stay far below Long.MAX_VALUE (TimerEngine bounds them).
     *
     * A task with deadline d goes to the finest level that spans it, into the bucket of its
     * "virtual tick" vid; the bucket index is vid % wheelSize.
     *   Finest level: vid = ceil(d / tickMs), bucket due at vid * tickMs >= d. When it is due,
     *   every task in it is due: a task never runs early, even by less than a tick.
     *   Coarser levels: vid = floor(d / tickMs), bucket due at vid * tickMs <= d (its start).
     *   When due, its tasks are re-added from the finest level at the new current time.
     * Unlike Kafka's, a coarser level's tick is half the span of the level below (for wheels of
     * 4 buckets or more; twice its tick below that), not the whole span: a coarser bucket's
     * deadlines then fit the finer levels for a whole tick before it is due, and can be moved
     * down during that tick (EarlyCascade) instead of all at once when it falls due.
     * Invariants:
     * (W1) currentTimeMs is a multiple of tickMs; an overflow wheel's current time is <= ours.
     * (W2) A linked task is in the bucket of its vid on the finest level that spans it, and
     *      current/tick < vid <= current/tick + wheelSize (finest), or
     *      current/tick < vid < current/tick + wheelSize (coarser): one vid per bucket at a time.
     * (W3) A non-empty bucket is in the queue, with the expiration of its vid.
     * The finest level's range includes current/tick + wheelSize, whose bucket is that of
     * current/tick: it is free because the current time reaches a bucket's expiration only when
     * that bucket is flushed, the finest level's before a coarser one due at the same time
     * (TimerTaskList.DUE_ORDER).
     * (W4) A bucket's id is its level and index (bucketId); a task's slot names it, so a task is
     *      unlinked without a search.
     * Intervals saturate at Long.MAX_VALUE; a level whose interval saturates spans every delay up
     * to Timer.MAX_DELAY_MS and never needs an overflow wheel.
     */

    private final long tickMs;
    private final int wheelSize;
    private final long intervalMs;
    private final int level;
    /** Created on first use: an idle timer holds no bucket. */
    private final TimerTaskList[] buckets;
    private final Queue<TimerTaskList> queue;
    /** How long before one of this level's buckets is due its tasks fit the finer levels; 0 on the finest. */
    private final long leadMs;
    private long currentTimeMs;
    private TimingWheel overflowWheel;

    /** The finest level of a wheel. */
    TimingWheel(long tickMs, int wheelSize, long startMs, Queue<TimerTaskList> queue) {
        this(tickMs, wheelSize, startMs, queue, 0, 0L);
    }

    private TimingWheel(long tickMs, int wheelSize, long startMs, Queue<TimerTaskList> queue, int level, long leadMs) {
        this.tickMs = tickMs;
        this.wheelSize = wheelSize;
        this.intervalMs = saturatedMultiply(tickMs, wheelSize);
        this.level = level;
        this.queue = queue;
        this.leadMs = leadMs;
        this.currentTimeMs = startMs - (startMs % tickMs);
        this.buckets = new TimerTaskList[wheelSize];
    }

    /** The tick of the level above one of {@code tickMs} and {@code wheelSize}: half this level's span (or 2 ticks). */
    static long coarserTickMs(long tickMs, int wheelSize) {
        return saturatedMultiply(tickMs, Math.max(2, wheelSize / 2));
    }

    /**
     * Links {@code task} into the bucket for {@code deadlineMs}. Returns false iff the task is
     * already due (its deadline is at or before the current time); the caller then runs it.
     */
    boolean add(TimerEntry task, long deadlineMs) {
        long untilDeadline = deadlineMs - currentTimeMs;
        if (level == 0) {
            if (untilDeadline <= 0) {
                return false;
            }
            if (untilDeadline <= intervalMs) {
                long q = deadlineMs / tickMs;
                long vid = q * tickMs == deadlineMs ? q : q + 1;
                link(task, vid);
                return true;
            }
        } else if (untilDeadline < intervalMs) {
            link(task, deadlineMs / tickMs);
            return true;
        }
        return overflowWheel().add(task, deadlineMs);
    }

    private void link(TimerEntry task, long vid) {
        TimerTaskList bucket = bucket((int) (vid % wheelSize));
        long expirationMs = vid * tickMs;
        assert bucket.expirationMs() == TimerTaskList.NONE || bucket.expirationMs() == expirationMs
                : "(W2) two virtual ticks in one bucket";
        if (bucket.setExpiration(expirationMs)) { // (W3)
            try {
                queue.offer(bucket); // may fail to grow: leave the bucket as it was, the task unlinked
            } catch (Throwable failure) {
                bucket.setExpiration(TimerTaskList.NONE);
                throw failure;
            }
        }
        bucket.add(task);
    }

    private TimerTaskList bucket(int index) {
        TimerTaskList bucket = buckets[index];
        if (bucket == null) {
            bucket = new TimerTaskList(level << 16 | index, tickMs); // (W4)
            buckets[index] = bucket;
        }
        return bucket;
    }

    private TimingWheel overflowWheel() {
        if (overflowWheel == null) {
            long coarserTickMs = coarserTickMs(tickMs, wheelSize);
            long leadMs = Math.min(coarserTickMs, Math.max(0L, intervalMs - coarserTickMs));
            overflowWheel = new TimingWheel(coarserTickMs, wheelSize, currentTimeMs, queue, level + 1, leadMs);
        }
        return overflowWheel;
    }

    /** Unlinks {@code task} from the bucket its slot names, on this level or above (W4). */
    void unlink(TimerEntry task) {
        int id = TimerTaskList.bucketId(task.slot);
        TimingWheel w = this;
        for (int i = level; i < id >>> 16; i++) {
            w = w.overflowWheel;
        }
        w.buckets[id & 0xFFFF].remove(task);
    }

    /** Moves the current time to {@code timeMs} rounded down to the tick, on every level (W1). */
    void advanceClock(long timeMs) {
        if (timeMs - currentTimeMs >= tickMs) {
            currentTimeMs = timeMs - (timeMs % tickMs);
            if (overflowWheel != null) {
                overflowWheel.advanceClock(currentTimeMs);
            }
        }
    }

    long currentTimeMs() {
        return currentTimeMs;
    }

    /** The non-empty bucket holding vid current/tick + ahead, or null (W2, coarser levels). */
    TimerTaskList bucketAhead(int ahead) {
        long vid = currentTimeMs / tickMs + ahead;
        TimerTaskList bucket = buckets[(int) (vid % wheelSize)];
        return bucket != null && !bucket.isEmpty() && bucket.expirationMs() / tickMs == vid ? bucket : null;
    }

    long tickMs() {
        return tickMs;
    }

    long intervalMs() {
        return intervalMs;
    }

    int wheelSize() {
        return wheelSize;
    }

    /**
     * How long before one of this level's buckets is due all its deadlines fit the levels below,
     * which may then take its tasks (EarlyCascade); 0 on the finest level.
     */
    long leadMs() {
        return leadMs;
    }

    /** The overflow wheel, or null if none was needed yet. */
    TimingWheel overflow() {
        return overflowWheel;
    }

    /** Visits every bucket made so far, on this level and the levels above it. */
    void forEachBucket(Consumer<TimerTaskList> action) {
        for (TimingWheel w = this; w != null; w = w.overflowWheel) {
            for (TimerTaskList b : w.buckets) {
                if (b != null) {
                    action.accept(b);
                }
            }
        }
    }

    /** Checks (W1)-(W4) on this level and above; returns the number of linked tasks. */
    long checkInvariants() {
        long linked = 0;
        if (currentTimeMs % tickMs != 0) {
            throw new IllegalStateException("(W1) current time " + currentTimeMs + " not on tick " + tickMs);
        }
        if (overflowWheel != null && overflowWheel.currentTimeMs > currentTimeMs) {
            throw new IllegalStateException("(W1) overflow wheel ahead of its lower wheel");
        }
        for (int i = 0; i < wheelSize; i++) {
            if (buckets[i] != null) {
                linked += checkBucket(buckets[i], i);
            }
        }
        return overflowWheel == null ? linked : linked + overflowWheel.checkInvariants();
    }

    private long checkBucket(TimerTaskList bucket, int index) {
        if (bucket.id() != (level << 16 | index)) {
            throw new IllegalStateException("(W4) bucket " + index + " of level " + level + " has id " + bucket.id());
        }
        bucket.checkSlots();
        if (bucket.isEmpty()) {
            return 0;
        }
        if (bucket.expirationMs() == TimerTaskList.NONE || !queue.contains(bucket)) {
            throw new IllegalStateException("(W3) non-empty bucket not queued: " + bucket);
        }
        long currentTick = currentTimeMs / tickMs;
        long expectedVid = bucket.expirationMs() / tickMs;
        long[] count = {0};
        bucket.forEach(task -> {
            count[0]++;
            if ((task.state() & TimerEntry.IN_INBOX) != 0) {
                return; // a pending change owns it and may have set its next deadline
            }
            long d = task.deadlineMs;
            long vid = level == 0 ? (d + tickMs - 1) / tickMs : d / tickMs;
            long ahead = vid - currentTick;
            boolean inRange = ahead >= 1 && (level == 0 ? ahead <= wheelSize : ahead < wheelSize);
            if (vid != expectedVid || vid % wheelSize != index || !inRange) {
                throw new IllegalStateException("(W2) task with deadline " + d + " in bucket " + index
                        + " expiring at " + bucket.expirationMs() + ", tick " + tickMs
                        + ", current " + currentTimeMs);
            }
        });
        return count[0];
    }

    static long saturatedMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return (high == 0 && low >= 0) ? low : Long.MAX_VALUE;
    }
}
