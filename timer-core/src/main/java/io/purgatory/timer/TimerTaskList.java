package io.purgatory.timer;

import java.util.Arrays;
import java.util.Comparator;
import java.util.function.Consumer;

/**
 * A bucket of a {@link TimingWheel}: the tasks of one tick of its level in an array, each task
 * knowing its position (its slot), and the time at which the bucket is due. O(1) add and remove
 * (amortized: the array grows or compacts now and then); a drain hands the tasks over in
 * position order, loading a run of them ahead of the walk so that their cache misses overlap.
 *
 * <p>Not thread-safe: confined to the driver of the owning {@link TimerEngine}.
 */
final class TimerTaskList {

    /*
     * Implementation notes.
     *
     * Kafka links a bucket's entries in a doubly linked list. Walking one is a chain of dependent
     * loads: with a million tasks pending, each a cache miss that cannot start before the last one
     * ends, and linking a task writes its cold neighbour. An array of references lets the walk
     * load the next tasks before it needs them (loadAhead), and an add writes only the array and
     * the task. A removal leaves a hole (null) rather than moving another task, which would be
     * one more cold write.
     *
     * (L1) tasks[head..end) holds every linked task, with holes; every other slot is null. A linked
     *      task's slot names this bucket and its position (slotOf), and linked counts them.
     * (L2) expirationMs == NONE iff the bucket is not in the engine's bucket queue; a bucket is
     *      queued once per round and its expiration does not change while queued, so it is
     *      re-queued only when it changes (from NONE). An empty bucket may stay queued until due.
     * (L3) Buckets fall due in DUE_ORDER: by expiration and, on a tie, the finer wheel's first
     *      (the wheel's finest level relies on it).
     * (L4) An add that finds the array full compacts it when at most half of it is linked, else
     *      grows it by half: the array stays within three times the most tasks it held at once
     *      (and within 1.5 times while none is removed), and a compaction's moves are paid for by
     *      the removals that made its holes (O(1) amortized). A bucket left empty gives back an
     *      array above KEEP_CAPACITY.
     */

    static final long NONE = -1L;

    /** The order in which queued buckets are expired (L3). */
    static final Comparator<TimerTaskList> DUE_ORDER = (a, b) -> {
        int byExpiration = Long.compare(a.expirationMs, b.expirationMs);
        return byExpiration != 0 ? byExpiration : Long.compare(a.tickMs, b.tickMs);
    };

    /** How many tasks a drain loads before it hands the first of them over. */
    static final int LOAD_AHEAD = 32;
    private static final int MIN_CAPACITY = 8;
    /** The largest array an emptied bucket keeps for its next round (L4). */
    private static final int KEEP_CAPACITY = 256;
    private static final TimerEntry[] NO_TASKS = new TimerEntry[0];

    /** This bucket's id in its wheel (TimingWheel.bucketId), the high half of its tasks' slots. */
    private final int id;
    /** The tick of the wheel this bucket belongs to (L3). */
    private final long tickMs;
    private long expirationMs = NONE;
    private TimerEntry[] tasks = NO_TASKS;
    private int head;
    private int end;
    private int linked;
    /** Folds in the loads of loadAhead, so that they cannot be dropped. */
    @SuppressWarnings("unused") // written only: its job is to keep the loads
    private int loaded;

    TimerTaskList(long tickMs) {
        this(0, tickMs);
    }

    TimerTaskList(int id, long tickMs) {
        this.id = id;
        this.tickMs = tickMs;
    }

    /** The slot of position {@code position} of bucket {@code id}: never 0, the slot of an unlinked task (L1). */
    static long slotOf(int id, int position) {
        return ((long) id + 1) << 32 | position;
    }

    /** The id of the bucket a linked task's {@code slot} names. */
    static int bucketId(long slot) {
        return (int) (slot >>> 32) - 1;
    }

    private static int position(long slot) {
        return (int) slot;
    }

    /** Appends {@code task}, which must not be linked anywhere. O(1) amortized (L4). */
    void add(TimerEntry task) {
        assert task.slot == 0 : "task already linked";
        if (end == tasks.length) {
            makeRoom();
        }
        tasks[end] = task;
        task.slot = slotOf(id, end);
        end++;
        linked++;
    }

    private void makeRoom() {
        if (linked > 0 && linked <= tasks.length / 2) {
            compact(); // (L4)
            return;
        }
        tasks = Arrays.copyOf(tasks, Math.max(MIN_CAPACITY, tasks.length + (tasks.length >> 1)));
    }

    /** Moves the linked tasks to the front, in order, updating their slots (L4). */
    private void compact() {
        int to = 0;
        for (int from = head; from < end; from++) {
            TimerEntry task = tasks[from];
            if (task != null) {
                tasks[to] = task;
                task.slot = slotOf(id, to);
                to++;
            }
        }
        Arrays.fill(tasks, to, end, null);
        head = 0;
        end = to;
    }

    /** Unlinks {@code task}, which its slot says is in this bucket. O(1). */
    void remove(TimerEntry task) {
        int position = position(task.slot);
        assert bucketId(task.slot) == id && tasks[position] == task : "(L1) " + task + " not at its slot in " + this;
        tasks[position] = null;
        task.slot = 0;
        if (--linked == 0) {
            emptied();
        }
    }

    /** No task is linked any more: start the array over, or give it back if large (L4). */
    private void emptied() {
        if (tasks.length > KEEP_CAPACITY) {
            tasks = NO_TASKS;
        } else {
            Arrays.fill(tasks, head, end, null);
        }
        head = 0;
        end = 0;
    }

    /**
     * Unlinks the tasks at positions up to {@code toPosition} (at most {@link #end()}) and hands
     * each to {@code action}, in position order. The action must not add to this bucket.
     * Returns how many it handed over.
     */
    int drainTo(int toPosition, Consumer<TimerEntry> action) {
        int drained = 0;
        TimerEntry[] array = tasks;
        while (head < toPosition) {
            int runEnd = Math.min(toPosition, head + LOAD_AHEAD);
            loaded += loadAhead(array, head, runEnd);
            for (; head < runEnd; head++) {
                TimerEntry task = array[head];
                if (task != null) {
                    array[head] = null;
                    task.slot = 0;
                    linked--;
                    drained++;
                    action.accept(task);
                }
            }
        }
        assert array == tasks : "(L1) added to a bucket while draining it";
        if (linked == 0) {
            emptied();
        }
        return drained;
    }

    /**
     * Unlinks every task, marks the bucket unqueued (L2), then hands each task to {@code action}
     * in position order. The bucket is empty from the start: the action may add to it again.
     */
    void flush(Consumer<TimerEntry> action) {
        expirationMs = NONE;
        TimerEntry[] array = tasks;
        int from = head;
        int to = end;
        tasks = NO_TASKS;
        head = 0;
        end = 0;
        linked = 0;
        for (int runStart = from; runStart < to; runStart += LOAD_AHEAD) {
            int runEnd = Math.min(to, runStart + LOAD_AHEAD);
            loaded += loadAhead(array, runStart, runEnd);
            for (int i = runStart; i < runEnd; i++) {
                TimerEntry task = array[i];
                if (task != null) {
                    array[i] = null;
                    task.slot = 0;
                    action.accept(task);
                }
            }
        }
        if (tasks == NO_TASKS && array.length <= KEEP_CAPACITY) {
            tasks = array; // cleared by the walk: kept for the next round (L4)
        }
    }

    /**
     * Reads each task of {@code array[from..to)}: the loads do not depend on each other, so their
     * cache misses overlap, and the walk that follows finds the tasks in cache. A CAS on a task
     * that is not in cache would wait out its miss alone.
     */
    private static int loadAhead(TimerEntry[] array, int from, int to) {
        int sum = 0;
        for (int i = from; i < to; i++) {
            TimerEntry task = array[i];
            if (task != null) {
                sum += task.state();
            }
        }
        return sum;
    }

    /** Sets the expiration; returns true iff it changed, i.e. the bucket must be queued (L2). */
    boolean setExpiration(long expirationMs) {
        if (this.expirationMs == expirationMs) {
            return false;
        }
        this.expirationMs = expirationMs;
        return true;
    }

    long expirationMs() {
        return expirationMs;
    }

    /** The id its tasks' slots carry. */
    int id() {
        return id;
    }

    boolean isEmpty() {
        return linked == 0;
    }

    /** How many tasks are linked. */
    int size() {
        return linked;
    }

    /** The first position that may hold a task (L1). */
    int head() {
        return head;
    }

    /** One past the last position that may hold a task (L1). */
    int end() {
        return end;
    }

    /** Visits every linked task (tests and invariant checks; O(n)). */
    void forEach(Consumer<TimerEntry> action) {
        for (int i = head; i < end; i++) {
            if (tasks[i] != null) {
                action.accept(tasks[i]);
            }
        }
    }

    /** Checks (L1): every linked task is at the position its slot names, and the count agrees. */
    void checkSlots() {
        int count = 0;
        for (int i = 0; i < tasks.length; i++) {
            TimerEntry task = tasks[i];
            if (task == null) {
                continue;
            }
            if (i < head || i >= end) {
                throw new IllegalStateException("(L1) task outside " + head + ".." + end + " at " + i + " in " + this);
            }
            if (task.slot != slotOf(id, i)) {
                throw new IllegalStateException("(L1) task at " + i + " of " + this + " has the slot of bucket "
                        + bucketId(task.slot) + " position " + position(task.slot));
            }
            count++;
        }
        if (count != linked) {
            throw new IllegalStateException("(L1) " + this + " counts " + linked + " tasks but holds " + count);
        }
    }

    @Override
    public String toString() {
        return "TimerTaskList[tickMs=" + tickMs + ", expirationMs=" + expirationMs + "]";
    }
}
