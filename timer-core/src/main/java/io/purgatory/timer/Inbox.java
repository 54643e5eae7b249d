package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The timer's inbox: lock-free Treiber stacks threaded through {@link TimerEntry#inboxNext}, one
 * per stripe, each on cache lines of its own. A thread always pushes to the same stripe; the
 * driver takes each stripe whole. Push is one CAS and allocates nothing.
 */
final class Inbox {

    /*
     * Implementation notes.
     *
     * One head shared by every thread made each schedule and each cancel move that head's cache
     * line (and the push counter beside it) between the cores; striping it removes that traffic
     * (measured in docs/benchmarks.md). Like LongAdder's cells, the heads are
     * striped, but by a per-thread index handed out in order rather than a hash, so that the
     * first threads to push never share a stripe. Stripes sit PAD slots apart in one array: 128
     * bytes, more than a cache line and its adjacent-line prefetch.
     *
     * (I1) A task is on at most one stripe, at most once (only the transition that sets the
     *      task's IN_INBOX bit pushes it), so the order in which stripes are drained does not matter.
     * (I2) Each stripe weighs its pushes racily: a push that leaves a dead task linked in the
     *      wheel (a cancel, a reschedule) weighs FRESH_PER_DEAD times a fresh schedule's, and
     *      push() reports each time a stripe's weight crosses a multiple of DEAD_BATCH dead
     *      pushes: about every DEAD_BATCH cancels, or DEAD_BATCH x FRESH_PER_DEAD new tasks, so
     *      at most about stripes x DEAD_BATCH dead tasks wait between drains. A fresh task is live
     *      anyway: draining for it early buys no memory, and costs the inserting thread.
     */

    /** Dead-task pushes per stripe between drains (I2). */
    static final int DEAD_BATCH = 1024;
    /** How many fresh schedules weigh as much as one dead-task push (I2). */
    static final int FRESH_PER_DEAD = 16;
    private static final int BATCH_WEIGHT = DEAD_BATCH * FRESH_PER_DEAD;
    private static final int PAD = 32;
    private static final int MAX_STRIPES = 16;
    private static final VarHandle HEADS = MethodHandles.arrayElementVarHandle(TimerEntry[].class);
    private static final AtomicInteger NEXT_THREAD_INDEX = new AtomicInteger();
    private static final ThreadLocal<int[]> THREAD_INDEX =
            ThreadLocal.withInitial(() -> new int[] {NEXT_THREAD_INDEX.getAndIncrement()});

    private final TimerEntry[] heads;
    private final int[] pushes;
    private final int mask;

    Inbox() {
        this(Math.min(MAX_STRIPES, Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors())) * 2));
    }

    /** {@code stripes} must be a power of two. */
    Inbox(int stripes) {
        assert Integer.bitCount(stripes) == 1 : stripes;
        this.mask = stripes - 1;
        this.heads = new TimerEntry[(stripes + 1) * PAD];
        this.pushes = new int[(stripes + 1) * PAD];
    }

    int stripes() {
        return mask + 1;
    }

    /**
     * Pushes {@code task} on the calling thread's stripe: {@code fresh} for a task newly scheduled,
     * false for one that may still be linked in the wheel. Returns true when the stripe has
     * gathered a batch (I2).
     */
    boolean push(TimerEntry task, boolean fresh) {
        int weight = fresh ? 1 : FRESH_PER_DEAD;
        int slot = slot(THREAD_INDEX.get()[0] & mask);
        for (;;) {
            TimerEntry head = (TimerEntry) HEADS.getVolatile(heads, slot);
            task.inboxNext = head;
            if (HEADS.compareAndSet(heads, slot, head, task)) {
                break;
            }
        }
        int before = pushes[slot];
        int after = before + weight;
        pushes[slot] = after;
        return ((before ^ after) & -BATCH_WEIGHT) != 0; // crossed a multiple of BATCH_WEIGHT
    }

    /** Takes stripe {@code stripe} whole: its newest task, chained by inboxNext; null if empty. */
    TimerEntry take(int stripe) {
        int slot = slot(stripe);
        if (HEADS.getVolatile(heads, slot) == null) {
            return null;
        }
        return (TimerEntry) HEADS.getAndSet(heads, slot, (TimerEntry) null);
    }

    /** The newest task of stripe {@code stripe}, left in place (checks in quiescence). */
    TimerEntry peek(int stripe) {
        return (TimerEntry) HEADS.getVolatile(heads, slot(stripe));
    }

    boolean isEmpty() {
        for (int i = 0; i <= mask; i++) {
            if (HEADS.getVolatile(heads, slot(i)) != null) {
                return false;
            }
        }
        return true;
    }

    private static int slot(int stripe) {
        return (stripe + 1) * PAD;
    }
}
