package io.purgatory.timer;

import java.util.Comparator;
import java.util.function.Consumer;

/**
 * A bucket of a {@link TimingWheel}: a circular doubly linked list of tasks with a sentinel, and
 * the time at which the bucket is due. O(1) add and remove; flush detaches the whole list at once.
 *
 * <p>Not thread-safe: confined to the driver of the owning {@link TimerEngine}.
 */
final class TimerTaskList {

    /*
     * Implementation notes.
     *
     * (L1) root.next .. root.prev are the linked tasks; an empty list is root <-> root.
     * (L2) expirationMs == NONE iff the bucket is not in the engine's bucket queue; a bucket is
     *      queued once per round and its expiration does not change while queued, so it is
     *      re-queued only when it changes (from NONE).
     * (L3) Buckets fall due in DUE_ORDER: by expiration and, on a tie, the finer wheel's first
     *      (the wheel's finest level relies on it).
     */

    static final long NONE = -1L;

    /** The order in which queued buckets are expired (L3). */
    static final Comparator<TimerTaskList> DUE_ORDER = (a, b) -> {
        int byExpiration = Long.compare(a.expirationMs, b.expirationMs);
        return byExpiration != 0 ? byExpiration : Long.compare(a.tickMs, b.tickMs);
    };

    private final TimerTask root = new Sentinel();
    /** The tick of the wheel this bucket belongs to (L3). */
    private final long tickMs;
    private long expirationMs = NONE;

    TimerTaskList(long tickMs) {
        this.tickMs = tickMs;
        root.prev = root;
        root.next = root;
    }

    /** Appends {@code task}, which must not be linked anywhere. O(1). */
    void add(TimerTask task) {
        assert task.next == null && task.prev == null : "task already linked";
        TimerTask tail = root.prev;
        task.next = root;
        task.prev = tail;
        tail.next = task;
        root.prev = task;
    }

    /** Unlinks {@code task} from whichever list holds it. O(1). */
    static void remove(TimerTask task) {
        TimerTask p = task.prev;
        TimerTask n = task.next;
        p.next = n;
        n.prev = p;
        task.prev = null;
        task.next = null;
    }

    /** Detaches every task, marks the bucket unqueued (L2), then hands each task to {@code action}. */
    void flush(Consumer<TimerTask> action) {
        TimerTask task = root.next;
        root.next = root;
        root.prev = root;
        expirationMs = NONE;
        while (task != root) {
            TimerTask next = task.next;
            task.prev = null;
            task.next = null;
            action.accept(task);
            task = next;
        }
    }

    /** Unlinks and returns the first task, or null if the list is empty. O(1). */
    TimerTask poll() {
        TimerTask task = root.next;
        if (task == root) {
            return null;
        }
        remove(task);
        return task;
    }

    /**
     * Moves every task and the expiration to {@code target}, which must be empty and unqueued, and
     * leaves this list empty and unqueued. O(1). The caller takes this list out of the queue first
     * and puts {@code target} in it after (L2): a queued list's expiration must not change.
     */
    void moveAllTo(TimerTaskList target) {
        assert target.isEmpty() && target.expirationMs == NONE : "target in use: " + target;
        if (!isEmpty()) {
            TimerTask first = root.next;
            TimerTask last = root.prev;
            target.root.next = first;
            target.root.prev = last;
            first.prev = target.root;
            last.next = target.root;
            root.next = root;
            root.prev = root;
        }
        target.expirationMs = expirationMs;
        expirationMs = NONE;
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

    boolean isEmpty() {
        return root.next == root;
    }

    /** Visits every linked task (tests and invariant checks; O(n)). */
    void forEach(Consumer<TimerTask> action) {
        for (TimerTask t = root.next; t != root; t = t.next) {
            action.accept(t);
        }
    }

    /** Checks (L1): the links are consistent in both directions. */
    void checkLinks() {
        TimerTask t = root;
        do {
            if (t.next == null || t.next.prev != t) {
                throw new IllegalStateException("broken link after " + t + " in " + this);
            }
            t = t.next;
        } while (t != root);
    }

    @Override
    public String toString() {
        return "TimerTaskList[tickMs=" + tickMs + ", expirationMs=" + expirationMs + "]";
    }

    /** The list head; never scheduled, never run. */
    private static final class Sentinel extends TimerTask {
        Sentinel() {
            super(0L);
        }

        @Override
        public void run() {
            throw new AssertionError("a sentinel never runs");
        }

        @Override
        public String toString() {
            return "Sentinel";
        }
    }
}
