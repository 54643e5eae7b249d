package io.purgatory.timer;

import io.purgatory.timer.internal.DueVisitor;
import io.purgatory.timer.internal.EntryAccess;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a {@link Timer} schedules: an entry that runs once, when its delay has passed. Write a
 * {@link TimerTask}, which adds {@code cancel()} and the other methods a task's user calls; this
 * class holds only the timer's bookkeeping, so that a library can make its own objects timer
 * entries without giving them a timer's methods (a purgatory's operations are entries). It is
 * its own list node: scheduling allocates nothing more.
 *
 * <p>Memory consistency effects: actions in a thread prior to adding an entry to a timer
 * happen-before that entry's {@link #run()} for that schedule.
 */
public abstract class TimerEntry {

    /*
     * Implementation notes.
     *
     * The entry is Kafka's TimerTaskEntry folded into the task: it carries its own place in a
     * bucket (slot: which bucket, which position of its array) and its own link in the owning
     * timer's inbox (inboxNext). Its life is one int, `state`: a lifecycle value in the low two
     * bits and the IN_INBOX flag. It does not hold its timer: a TimerTask does, for its own
     * cancel(); a library names the timer when it cancels an entry of its own (EntryAccess), so
     * a purgatory's operation carries no field for it. Threads that add or cancel change `state` with a CAS and, if the
     * entry may have to move in the wheel, push it on the owner's inbox; only the thread that
     * drives the timer (TimerEngine's driver) reads the inbox and touches slot.
     *
     * (T1) Every transition out of or into SCHEDULED is one CAS on `state`, so a schedule ends
     *      exactly once: by expiry (the driver's CAS to EXPIRED), by cancel, or by a reschedule.
     * (T2) IN_INBOX is set iff the entry is on its owner's inbox stack. It is set by the CAS that
     *      made a change the driver must see, and cleared by the driver before it reads the state.
     * (T3) An entry linked in a bucket is SCHEDULED or has IN_INBOX set.
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

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TimerEntry.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        EntryAccess.install(new Access());
    }

    private final long delayMs;
    private volatile int state;
    /** Relative to the owner's origin (T4). */
    volatile long deadlineMs;
    /** Where the entry is linked in its owner's wheel (TimerTaskList.slotOf), 0 if not; the owner's driver only. */
    long slot;
    /** The next entry on the owner's inbox stack (T2). */
    TimerEntry inboxNext;

    /**
     * An entry to run {@code delayMs} milliseconds after it is added to a timer; any value is
     * allowed, read by the delay rule of {@link Timer}.
     */
    protected TimerEntry(long delayMs) {
        this.delayMs = delayMs;
    }

    /** The delay this entry was created with, in milliseconds. */
    public final long delayMs() {
        return delayMs;
    }

    /** What the timer runs once the entry's delay has passed. */
    protected abstract void run();

    /**
     * Refused, always: a copy would share this entry's timer state (and an operation's watch
     * links), so that settling or cancelling the copy would change this one. Make a new one.
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

    /** Cancels the current schedule on {@code owner}, its timer's: true iff this call ended a scheduled one (T1). */
    boolean cancelSchedule(TimerEngine owner) {
        for (;;) {
            int s = state;
            if ((s & LIFECYCLE) != SCHEDULED) {
                return false;
            }
            if (STATE.compareAndSet(this, s, CANCELLED | IN_INBOX)) {
                owner.onCancelled(this, (s & IN_INBOX) == 0);
                return true;
            }
        }
    }

    /**
     * Moves to {@code lifecycle} (SCHEDULED or EXPIRED) from any state, setting IN_INBOX when the
     * driver must look at the entry. Returns the previous state, with MUST_PUSH iff this move set
     * IN_INBOX: the caller then pushes the entry on the inbox (T2). The one place that decides it.
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

    /** The driver's close: cancels a scheduled entry whatever its inbox bit. True iff it won. */
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

    /** Sets IN_INBOX; true iff it was clear, so the caller pushes the entry (T2). */
    boolean rejoinInbox() {
        return ((int) STATE.getAndBitwiseOr(this, IN_INBOX) & IN_INBOX) == 0;
    }

    /** Clears IN_INBOX (the driver has popped the entry); returns the state without it (T2). */
    int leaveInbox() {
        return (int) STATE.getAndBitwiseAnd(this, ~IN_INBOX) & ~IN_INBOX;
    }

    /** What a library built on the timer may do with its own entries (EntryAccess). */
    private static final class Access extends EntryAccess {
        @Override
        public boolean supports(Timer timer) {
            return engineOf(timer) != null;
        }

        @Override
        public void awaitBackPressure(Timer timer) {
            if (timer instanceof SystemTimerReaper reaper) {
                awaitBackPressure(reaper.timer());
            } else if (timer instanceof SystemTimer system) {
                system.awaitBackPressure();
            }
        }

        @Override
        public void schedule(Timer timer, TimerEntry entry, Clock readOn, long readNanos) {
            engine(timer).schedule(entry, readOn, readNanos);
        }

        @Override
        public boolean cancel(Timer timer, TimerEntry entry) {
            return entry.cancelSchedule(engine(timer));
        }

        @Override
        public boolean visitByDue(Timer timer, DueVisitor visitor, long maxWaitNanos) {
            TimerEngine engine = engineOf(timer);
            return engine != null && engine.askDriver(driver -> driver.visitByDue(visitor), maxWaitNanos) != null;
        }

        private static TimerEngine engine(Timer timer) {
            TimerEngine engine = engineOf(timer);
            if (engine == null) {
                throw new IllegalArgumentException("not a timer of this library: " + timer);
            }
            return engine;
        }

        private static TimerEngine engineOf(Timer timer) {
            if (timer instanceof SystemTimer system) {
                return system.engine();
            }
            if (timer instanceof ManualTimer manual) {
                return manual.engine();
            }
            return timer instanceof SystemTimerReaper reaper ? engineOf(reaper.timer()) : null;
        }
    }
}
