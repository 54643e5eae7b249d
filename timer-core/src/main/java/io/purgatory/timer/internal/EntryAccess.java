package io.purgatory.timer.internal;

import io.purgatory.timer.Clock;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerEntry;

/**
 * What a library built on the timer (the purgatory) may do with entries of its own, which have
 * none of {@link io.purgatory.timer.TimerTask}'s methods: schedule one on a timer without
 * waiting for its back-pressure, and cancel one. Not a user API: the module exports this
 * package to {@code io.purgatory} only. The one implementation is {@link TimerEntry}'s, installed
 * when that class initializes.
 */
public abstract class EntryAccess {

    private static EntryAccess instance;

    /** For {@link TimerEntry}'s implementation only. */
    protected EntryAccess() {
    }

    /** The implementation. */
    public static EntryAccess get() {
        EntryAccess access = instance;
        if (access == null) {
            try {
                Class.forName(TimerEntry.class.getName(), true, TimerEntry.class.getClassLoader()); // installs it
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            access = instance;
        }
        return access;
    }

    /**
     * Installs {@code access}, once: {@link TimerEntry}'s, from its static initializer.
     *
     * @throws IllegalStateException if one is installed already
     */
    public static synchronized void install(EntryAccess access) {
        if (instance != null) {
            throw new IllegalStateException("EntryAccess is installed already");
        }
        instance = access;
    }

    /** True iff {@code timer} is one of this library's (a SystemTimer, a ManualTimer, a reaper of one). */
    public abstract boolean supports(Timer timer);

    /** Waits as {@code timer}'s back-pressure says, before a user's work is taken (what its add does first). */
    public abstract void awaitBackPressure(Timer timer);

    /**
     * Schedules {@code entry} on {@code timer}, with {@code readNanos} as the time now if it was
     * read from {@code readOn} and that is {@code timer}'s clock (the caller's one reading); else
     * (a null {@code readOn}, another clock) the timer reads its clock.
     */
    public abstract void schedule(Timer timer, TimerEntry entry, Clock readOn, long readNanos);

    /**
     * Cancels {@code entry}'s current schedule on {@code timer}; true iff this call ended a
     * scheduled one.
     *
     * @throws IllegalArgumentException if {@code timer} is not one of this library's
     */
    public abstract boolean cancel(Timer timer, TimerEntry entry);

    /**
     * Shows {@code visitor} the entries scheduled on {@code timer}, soonest due first by bucket
     * (in any order within one), under its driver lock: at once if no thread drives it, else by
     * its driver at its next step. Returns false, having shown nothing, if {@code timer} is not one
     * of this library's, is closed, is driven by the calling thread (an entry running now), or
     * took no step within {@code maxWaitNanos}.
     */
    public abstract boolean visitByDue(Timer timer, DueVisitor visitor, long maxWaitNanos);
}
