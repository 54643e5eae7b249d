package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A task that a {@link Timer} runs once its delay has passed.
 *
 * <p>Adding a task schedules it; adding it again while it is scheduled reschedules it, and adding
 * it after it ran schedules it anew. {@link #cancel()} is O(1), idempotent and thread-safe; a
 * cancelled task never runs. A task belongs to the first timer it is added to and cannot be
 * added to another. The task is its own list node: scheduling allocates nothing more.
 *
 * <p>Memory consistency effects: actions in a thread prior to adding a task to a timer
 * happen-before that task's {@link #run()} for that schedule.
 */
public abstract class TimerTask implements Runnable {

    /*
     * Implementation notes.
     *
     * The task is Kafka's TimerTaskEntry folded into the task: it carries its own bucket links
     * (prev/next) and its own link in the owning timer's inbox (inboxNext), so a schedule costs no
     * allocation. Its life is one int, `state`: a lifecycle value in the low two bits and the
     * IN_INBOX flag. Threads that add or cancel change `state` with a CAS and, if the task may
     * have to move in the wheel, push it on the owner's inbox; only the thread that drives the
     * timer (TimerEngine's driver) reads the inbox and touches prev/next. Invariants:
     *
     * (T1) Every transition out of or into SCHEDULED is one CAS on `state`, so a schedule ends
     *      exactly once: by expiry (the driver's CAS to EXPIRED), by cancel, or by a reschedule.
     * (T2) IN_INBOX is set iff the task is on its owner's inbox stack. It is set by the CAS that
     *      made a change the driver must see, and cleared by the driver before it reads the state.
     * (T3) A task linked in a bucket is SCHEDULED or has IN_INBOX set.
     * (T4) `deadlineMs` is written before the CAS that publishes it and read after reading state.
     * (T5) Bits 8..31 of `state` belong to the subclass (extensionBits): every transition of the
     *      timer's bits carries them over unchanged, and the subclass changes them only by CAS. A
     *      subclass keeps its own state there instead of in a field of its own (DelayedOperation
     *      does: a pending operation is 4 bytes smaller, 8 with the object alignment).
     */

    static final int NEW = 0;
    static final int SCHEDULED = 1;
    static final int EXPIRED = 2;
    static final int CANCELLED = 3;
    static final int LIFECYCLE = 3;
    static final int IN_INBOX = 4;
    /** The bits of `state` that are the timer's (T5). */
    static final int TIMER_BITS = 0xFF;
    private static final int EXTENSION_SHIFT = 8;

    private static final VarHandle STATE;
    private static final VarHandle OWNER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(TimerTask.class, "state", int.class);
            OWNER = lookup.findVarHandle(TimerTask.class, "owner", TimerEngine.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long delayMs;
    private volatile int state;
    private volatile TimerEngine owner;
    /** Relative to the owner's origin (T4). */
    volatile long deadlineMs;
    /** Bucket links; touched only by the owner's driver. Null when not linked. */
    TimerTask prev;
    TimerTask next;
    /** The next task on the owner's inbox stack (T2). */
    TimerTask inboxNext;

    /**
     * Creates a task to run {@code delayMs} milliseconds after it is added to a timer. A delay of
     * zero or less means "run promptly"; a delay above {@link Timer#MAX_DELAY_MS} is
     * treated as that maximum.
     */
    protected TimerTask(long delayMs) {
        this.delayMs = delayMs;
    }

    /** The delay this task was created with, in milliseconds. */
    public final long delayMs() {
        return delayMs;
    }

    /**
     * Cancels this task's current schedule: it will not run for it. O(1); safe from any thread.
     * Subclasses that override this must call {@code super.cancel()}.
     *
     * @return true iff this call cancelled a scheduled task
     */
    public boolean cancel() {
        for (;;) {
            int s = state;
            if ((s & LIFECYCLE) != SCHEDULED) {
                return false;
            }
            if (STATE.compareAndSet(this, s, (s & ~TIMER_BITS) | CANCELLED | IN_INBOX)) { // (T1), (T2), (T5)
                owner.onCancelled(this, (s & IN_INBOX) == 0);
                return true;
            }
        }
    }

    /**
     * Returns true iff this task's last schedule was cancelled (by {@link #cancel()} or a close).
     * Subclasses that give {@link #cancel()} a wider meaning override this to match.
     */
    public boolean isCancelled() {
        return (state & LIFECYCLE) == CANCELLED;
    }

    /** Returns true iff this task is scheduled: added, and since then neither run nor cancelled. */
    public final boolean isScheduled() {
        return (state & LIFECYCLE) == SCHEDULED;
    }

    @Override
    public String toString() {
        return getClass().getName() + "[delayMs=" + delayMs + "]";
    }

    // ---- for the timer (package-private) ----

    /** The timer's bits of the state (T5). */
    int state() {
        return state & TIMER_BITS;
    }

    /**
     * The 24 bits of this task's state word that the timer leaves alone, for a subclass that keeps
     * state of its own next to the timer's: one word instead of two. Zero initially.
     */
    protected final int extensionBits() {
        return state >>> EXTENSION_SHIFT;
    }

    /**
     * Atomically sets the extension bits to {@code update} if they are {@code expected}, leaving
     * the timer's bits as they are. Returns true iff it did. {@code update} must fit in 24 bits.
     */
    protected final boolean compareAndSetExtensionBits(int expected, int update) {
        assert (update >>> (Integer.SIZE - EXTENSION_SHIFT)) == 0 : "extension bits overflow: " + update;
        for (;;) {
            int s = state;
            if ((s >>> EXTENSION_SHIFT) != expected) {
                return false;
            }
            if (STATE.compareAndSet(this, s, (s & TIMER_BITS) | (update << EXTENSION_SHIFT))) {
                return true;
            }
        }
    }

    /** Binds this task to {@code engine} on first use; false if it belongs to another engine. */
    boolean bindTo(TimerEngine engine) {
        if (owner == null && OWNER.compareAndSet(this, null, engine)) {
            return true;
        }
        return owner == engine;
    }

    TimerEngine owner() {
        return owner;
    }

    /**
     * Moves to {@code lifecycle} (SCHEDULED or EXPIRED) from any state, setting IN_INBOX when the
     * driver must look at the task. Returns the previous state.
     */
    int moveTo(int lifecycle) {
        for (;;) {
            int s = state;
            boolean mayBeLinked = (s & LIFECYCLE) == SCHEDULED;
            boolean needsDriver = lifecycle == SCHEDULED || mayBeLinked || (s & IN_INBOX) != 0;
            // TimerEngine.afterTransition pushes iff this set the bit (T2)
            int next = (s & ~TIMER_BITS) | lifecycle | (needsDriver ? IN_INBOX : 0); // (T5)
            if (STATE.compareAndSet(this, s, next)) {
                return s & TIMER_BITS;
            }
        }
    }

    /** The driver's expiry: SCHEDULED (and not on the inbox) to EXPIRED. True iff it won. */
    boolean expire() {
        for (;;) {
            int s = state;
            if ((s & TIMER_BITS) != SCHEDULED) {
                return false; // not scheduled, or a change is pending on the inbox
            }
            if (STATE.compareAndSet(this, s, (s & ~TIMER_BITS) | EXPIRED)) { // (T1), (T5)
                return true;
            }
        }
    }

    /** The driver's close: cancels a scheduled task whatever its inbox bit. True iff it won. */
    boolean cancelOnClose() {
        for (;;) {
            int s = state;
            if ((s & LIFECYCLE) != SCHEDULED) {
                return false;
            }
            if (STATE.compareAndSet(this, s, (s & ~LIFECYCLE) | CANCELLED)) { // keeps IN_INBOX and (T5)
                return true;
            }
        }
    }

    /** Clears IN_INBOX (the driver has popped the task); returns the state without it (T2). */
    int leaveInbox() {
        return (int) STATE.getAndBitwiseAnd(this, ~IN_INBOX) & TIMER_BITS & ~IN_INBOX;
    }
}
