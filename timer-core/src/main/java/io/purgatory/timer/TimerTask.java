package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

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
     * The task is Kafka's TimerTaskEntry folded into the task: it carries its own place in a bucket
     * (slot: which bucket, which position of its array) and its own link in the owning timer's
     * inbox (inboxNext), so a schedule allocates nothing but, now and then, a bucket's array. Its
     * life is one int, `state`: a lifecycle value in the low two bits and the IN_INBOX flag.
     * Threads that add or cancel change `state` with a CAS and, if the task may have to move in
     * the wheel, push it on the owner's inbox; only the thread that drives the timer
     * (TimerEngine's driver) reads the inbox and touches slot. Invariants:
     *
     * (T1) Every transition out of or into SCHEDULED is one CAS on `state`, so a schedule ends
     *      exactly once: by expiry (the driver's CAS to EXPIRED), by cancel, or by a reschedule.
     * (T2) IN_INBOX is set iff the task is on its owner's inbox stack. It is set by the CAS that
     *      made a change the driver must see, and cleared by the driver before it reads the state.
     * (T3) A task linked in a bucket is SCHEDULED or has IN_INBOX set.
     * (T4) `deadlineMs` is written before the CAS that publishes it and read after reading state.
     */

    static final int NEW = 0;
    static final int SCHEDULED = 1;
    static final int EXPIRED = 2;
    static final int CANCELLED = 3;
    static final int LIFECYCLE = 3;
    static final int IN_INBOX = 4;
    /** In what {@link #moveTo} returns only: the transition set IN_INBOX, so the caller pushes (T2). */
    static final int MUST_PUSH = 8;

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
    /** Where the task is linked in its owner's wheel (TimerTaskList.slotOf), 0 if not; the owner's driver only. */
    long slot;
    /** The next task on the owner's inbox stack (T2). */
    TimerTask inboxNext;

    /**
     * Creates a task to run {@code delayMs} milliseconds after it is added to a timer; any value
     * is allowed, read by the delay rule of {@link Timer}.
     */
    protected TimerTask(long delayMs) {
        this.delayMs = delayMs;
    }

    /**
     * Creates a task to run {@code delay} after it is added to a timer, read by the duration rule
     * of {@link Timer} (rounded up to whole ms, saturating: any duration is allowed).
     *
     * @throws NullPointerException if {@code delay} is null
     */
    protected TimerTask(Duration delay) {
        this(TimerConfig.toMs(delay, "delay"));
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
            if (STATE.compareAndSet(this, s, CANCELLED | IN_INBOX)) { // (T1), (T2)
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

    /**
     * Whether an add of this task that waits for a timer's back-pressure
     * ({@link SystemTimer.Builder#backPressure}) may stop waiting now, because what added it no
     * longer needs it held back. Asked over and over on the adding thread while it waits, so it
     * must be cheap and must not block; the default is never. A purgatory's operation answers
     * true once it is settled, or once a check asked its submitter to try it again: a wait would
     * only delay its answer. Whatever it throws reaches the caller of {@code add}, and the task is
     * then not scheduled.
     */
    protected boolean mayStopWaitingForBackPressure() {
        return false;
    }

    /**
     * Refused, always: a copy would share this task's timer state (and an operation's watch
     * links), so that settling or cancelling the copy would change this task. Make a new task
     * instead. Final, so that no subclass can allow it.
     *
     * @throws CloneNotSupportedException always
     */
    @Override
    protected final Object clone() throws CloneNotSupportedException {
        throw new CloneNotSupportedException(getClass().getName() + ": a timer task or delayed operation cannot be"
                + " copied (the copy would share its timer state and watch links); make a new one");
    }

    // ---- for the timer (package-private) ----

    /** The state word: a lifecycle value, maybe with IN_INBOX. */
    int state() {
        return state;
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
     * driver must look at the task. Returns the previous state, with MUST_PUSH iff this move set
     * IN_INBOX: the caller then pushes the task on the inbox (T2). The one place that decides it.
     */
    int moveTo(int lifecycle) {
        for (;;) {
            int s = state;
            boolean mayBeLinked = (s & LIFECYCLE) == SCHEDULED;
            boolean needsDriver = lifecycle == SCHEDULED || mayBeLinked || (s & IN_INBOX) != 0;
            if (STATE.compareAndSet(this, s, lifecycle | (needsDriver ? IN_INBOX : 0))) {
                return needsDriver && (s & IN_INBOX) == 0 ? s | MUST_PUSH : s; // (T2)
            }
        }
    }

    /** The driver's expiry: SCHEDULED (and not on the inbox) to EXPIRED. True iff it won. */
    boolean expire() {
        return STATE.compareAndSet(this, SCHEDULED, EXPIRED); // (T1); fails while a change is on the inbox
    }

    /** The driver's close: cancels a scheduled task whatever its inbox bit. True iff it won. */
    boolean cancelOnClose() {
        for (;;) {
            int s = state;
            if ((s & LIFECYCLE) != SCHEDULED) {
                return false;
            }
            if (STATE.compareAndSet(this, s, (s & ~LIFECYCLE) | CANCELLED)) { // keeps IN_INBOX
                return true;
            }
        }
    }

    /** Sets IN_INBOX; true iff it was clear, so the caller pushes the task (T2). */
    boolean rejoinInbox() {
        return ((int) STATE.getAndBitwiseOr(this, IN_INBOX) & IN_INBOX) == 0;
    }

    /** Clears IN_INBOX (the driver has popped the task); returns the state without it (T2). */
    int leaveInbox() {
        return (int) STATE.getAndBitwiseAnd(this, ~IN_INBOX) & ~IN_INBOX;
    }
}
