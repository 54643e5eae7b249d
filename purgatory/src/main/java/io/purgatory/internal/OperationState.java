package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The life of an {@link Operation}, in its one state word: submitted once, claimed for each try,
 * settled once, finished once. Every transition is a CAS on that word; nothing here blocks.
 */
public final class OperationState {

    /*
     * Implementation notes.
     *
     * The word: bits 0-1 the outcome (0 while pending, else COMPLETED, EXPIRED or CANCELLED);
     * bits 2-11 the flags below; bits 12-63 the watch time in microseconds, modulo 2^52 (about
     * 142 years).
     *
     * (O1) The outcome leaves 0 exactly once, by one CAS, and is never cleared.
     * (O2) A try runs only under the claim: TRYING, set by a CAS on a pending word without it, so
     *      at most one thread tries the operation at a time, and no try starts on a settled word.
     *      A settle that takes no claim (a cancel, an expiry, a close) may land while a try runs:
     *      that tryComplete then sees isCompleted() turn true, its forceComplete returns false,
     *      and the callbacks wait until it returns (O5).
     * (O3) A check from another thread that finds the claim taken sets RETRY instead of waiting;
     *      the holder tries again while RETRY is set and the operation is pending. The checker's
     *      state change happens-before its CAS of RETRY, which the holder's next CAS reads: no
     *      wake-up from another thread is lost, and no thread waits for another's try.
     * (O4) A check by a thread that holds the claim (a tryComplete checking its own keys, directly
     *      or through a callback it runs) sets SELF_RETRY instead, and a claim taken while this
     *      thread holds another is nested: within the outermost check (or submission) on a
     *      thread, each operation is tried at most MAX_TRIES_PER_CHECK times at that thread's own
     *      request (InProgress counts the nested tries), so tries that check keys they watch end.
     * (O5) Finishing a settle (its owner's booking, then the callbacks) happens exactly once: by
     *      the settler if no claim was held when its CAS won, else by the holder as it gives the
     *      claim back, before it clears TRYING.
     * (O6) `owner` is written under the submission's claim, before the operation is on any list
     *      or the timer, and cleared under it once a failed submission is undone; whoever
     *      finishes a settle reads it after its CAS (or claim), which came after that.
     * (O7) A try reports a completion as its own (checkAndComplete's count, what
     *      tryCompleteElseWatch returns) iff the completion was made during it, on its thread,
     *      while it held the claim (BY_HOLDER, set in the settle's CAS): whatever the try
     *      returned or threw, exactly one caller learns that it completed the operation.
     * (O8) An expiry counts itself in flight with its owner before its CAS and until its
     *      callbacks have run; if a claim was held at its CAS, the CAS sets COUNTED and the
     *      holder ends the count once it has finished the settle.
     * (O9) A settle by its purgatory's close sets BY_CLOSE in the same CAS as the outcome, so a
     *      wait ends CLOSED exactly when the close settled it.
     */

    /** Outcome codes: completed, expired, cancelled (0 while pending). */
    public static final int COMPLETED = 1;
    /** See COMPLETED. */
    public static final int EXPIRED = 2;
    /** See COMPLETED. */
    public static final int CANCELLED = 3;
    /** Tries of an operation in one check that its own thread asks for (O4). */
    static final int MAX_TRIES_PER_CHECK = 3;

    static final long OUTCOME = 3L;
    static final long TRYING = 1L << 2;
    static final long RETRY = 1L << 3;
    static final long SUBMITTED = 1L << 4;
    static final long WATCHED = 1L << 5;
    static final long TIMED = 1L << 6;
    static final long SELF_RETRY = 1L << 7;
    /** An expiry handed to a claim's holder to finish: its owner counts it in flight until then (O8). */
    static final long COUNTED = 1L << 8;
    /** Settled by its purgatory's close (O9). */
    static final long BY_CLOSE = 1L << 9;
    /** Settled on the thread holding the claim, during its try (O7). */
    static final long BY_HOLDER = 1L << 10;
    /** Tried by a check at least once (not only by its submission): for the list of pending operations. */
    static final long CHECKED = 1L << 11;
    static final long CLAIM_BITS = TRYING | RETRY | SELF_RETRY;
    private static final int TIME_SHIFT = 12;
    private static final long TIME_MASK = -1L >>> TIME_SHIFT;
    private static final long NANOS_PER_MICRO = 1_000L;

    /** How a settle treats an operation and its callbacks. */
    private static final int ANY = 0;
    /** As ANY, by a submission that found its purgatory closing (O9). */
    private static final int CLOSING = 1;
    /** Submitted operations only: a sweep of cancelForKey, which must not reach one being undone (Engine N2). */
    private static final int SUBMITTED_ONLY = 2;
    /** As SUBMITTED_ONLY, and the callbacks run before the settle returns, inside a callback too (close, Q3). */
    private static final int SUBMITTED_NOW = 3;

    static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Operation.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private OperationState() {
    }

    // ---- readings ----

    /** True once {@code op} is settled, whatever the outcome (O1). */
    public static boolean isSettled(Operation op) {
        return (op.state & OUTCOME) != 0;
    }

    /** The outcome code of {@code op}: 0 while pending, else COMPLETED, EXPIRED or CANCELLED. */
    public static int outcome(Operation op) {
        return (int) (op.state & OUTCOME);
    }

    /** True iff {@code op} was settled by its purgatory's close (O9). */
    public static boolean wasSettledByClose(Operation op) {
        return (op.state & BY_CLOSE) != 0;
    }

    /** True once {@code op} is on its keys' lists, and after it was settled from there. */
    public static boolean wasWatched(Operation op) {
        return (op.state & WATCHED) != 0;
    }

    /** True iff a check has tried {@code op} (a submission's own tries do not count). */
    static boolean wasChecked(Operation op) {
        return (op.state & CHECKED) != 0;
    }

    /** The name of the purgatory {@code op} was submitted to, or null if none. */
    public static String ownerName(Operation op) {
        Owner owner = op.owner;
        return owner == null ? null : owner.name();
    }

    static boolean isSettled(long s) {
        return (s & OUTCOME) != 0;
    }

    static boolean isSubmitted(long s) {
        return (s & SUBMITTED) != 0;
    }

    /** True iff {@code s} is settled and a claim's holder has yet to finish it (O5). */
    static boolean isBeingFinishedByAHolder(long s) {
        return isSettled(s) && (s & TRYING) != 0;
    }

    /**
     * How long the operation of word {@code s} has been watched at {@code nowNanos}: below 0 if it
     * was watched after that reading; -1 if not timed.
     */
    static long watchedNanos(long s, long nowNanos) {
        return (s & TIMED) == 0 ? -1 : nowNanos - watchedAtNanos(s, nowNanos);
    }

    /**
     * When the operation of timed word {@code s} was watched, on the clock {@code nowNanos} was
     * read from: before or after that reading (by another thread, while a list reads it).
     */
    static long watchedAtNanos(long s, long nowNanos) {
        long now = Math.floorDiv(nowNanos, NANOS_PER_MICRO) & TIME_MASK;
        long micros = (now - (s >>> TIME_SHIFT)) << TIME_SHIFT >> TIME_SHIFT; // signed: the stamp is 52 bits
        return nowNanos - micros * NANOS_PER_MICRO;
    }

    // ---- settles ----

    /** Settles {@code op} with {@code outcome} unless it is settled (O1); finishes it unless a claim is held (O5). */
    public static boolean settle(Operation op, int outcome) {
        return settle(op, outcome, ANY);
    }

    /** cancelForKey's settle: submitted operations only (Engine N2). */
    static boolean settleIfSubmitted(Operation op, int outcome) {
        return settle(op, outcome, SUBMITTED_ONLY);
    }

    /** A close's sweep: submitted operations only, callbacks before returning (Callbacks Q3), by the close (O9). */
    static boolean settleNow(Operation op, int outcome) {
        return settle(op, outcome, SUBMITTED_NOW);
    }

    /** A submission's settle, its claim held, because its purgatory is closing (O9). */
    static boolean settleForClose(Operation op, int outcome) {
        return settle(op, outcome, CLOSING);
    }

    private static boolean settle(Operation op, int outcome, int mode) {
        long bits = outcome | (mode == SUBMITTED_NOW || mode == CLOSING ? BY_CLOSE : 0);
        for (;;) {
            long s = op.state;
            if (isSettled(s) || (mode >= SUBMITTED_ONLY && !isSubmitted(s))) {
                return false;
            }
            long b = (s & TRYING) != 0 && InProgress.current().holdsClaim(op) ? bits | BY_HOLDER : bits; // (O7)
            if (STATE.compareAndSet(op, s, s | b)) {
                if ((s & TRYING) == 0) {
                    finish(op, outcome, s | b, mode == SUBMITTED_NOW);
                }
                return true;
            }
        }
    }

    /**
     * The timer's expiry of {@code op}: a settle its owner counts as in flight until its callbacks
     * have run, here or, if a try holds the claim, on the holder's thread (O8).
     */
    public static void expire(Operation op) {
        Owner owner = op.owner;
        if (owner == null) { // never submitted: nobody waits for it
            settle(op, EXPIRED);
            return;
        }
        owner.expiryBegins();
        boolean handedToTheHolder = false;
        try {
            InProgress progress = InProgress.current();
            progress.beginExpiry(owner.engine());
            try {
                handedToTheHolder = expireSubmitted(op);
            } finally {
                progress.endExpiry();
            }
        } finally {
            if (!handedToTheHolder) {
                owner.expiryEnds();
            }
        }
    }

    /** Settles a submitted {@code op} as expired; true iff a claim was held, so its holder finishes it (O8). */
    private static boolean expireSubmitted(Operation op) {
        for (;;) {
            long s = op.state;
            if (isSettled(s) || !isSubmitted(s)) {
                return false; // not one whose failed submission is being undone (Engine N2)
            }
            long held = s & TRYING;
            if (STATE.compareAndSet(op, s, s | EXPIRED | (held != 0 ? COUNTED : 0))) {
                if (held == 0) {
                    finish(op, EXPIRED, s | EXPIRED, false);
                }
                return held != 0;
            }
        }
    }

    // ---- the submission's marks ----

    /** Throws if {@code op} cannot be submitted: it is settled, or was submitted before. */
    static void checkSubmittable(Operation op, long s) {
        if (isSettled(s)) {
            String[] names = {"", "COMPLETED", "EXPIRED", "CANCELLED"};
            throw new IllegalStateException("operation is already settled (" + names[(int) (s & OUTCOME)] + "): " + op);
        }
        if ((s & (SUBMITTED | TRYING)) != 0) {
            throw new IllegalStateException("operation was already submitted to purgatory '" + ownerName(op) + "': "
                    + op);
        }
    }


    /** Marks the operation watched, at {@code nowNanos} if {@code timed}; the claim is held. */
    static void markWatched(Operation op, boolean timed, long nowNanos) {
        long bits = WATCHED;
        if (timed) {
            bits |= TIMED | ((Math.floorDiv(nowNanos, NANOS_PER_MICRO) & TIME_MASK) << TIME_SHIFT);
        }
        STATE.getAndBitwiseOr(op, bits);
    }

    /**
     * Undoes a failed submission, the claim still held: no longer submitted nor watched, and no
     * owner, unless a settle landed meanwhile. Returns false, changing nothing, if it did: that
     * settle stands and the claim's release finishes it (Engine N2).
     */
    static boolean abandon(Operation op) {
        for (;;) {
            long s = op.state;
            if (isSettled(s)) {
                return false;
            }
            if (STATE.compareAndSet(op, s, s & CLAIM_BITS)) {
                return true;
            }
        }
    }

    /**
     * Finishes a settle, exactly once (O5): the owner's booking, then the callbacks, whatever the
     * booking does; the callbacks before returning if {@code now} (Callbacks Q3).
     */
    static void finish(Operation op, int outcome, long s, boolean now) {
        Owner owner = op.owner; // (O6)
        try {
            if (owner != null && isSubmitted(s)) {
                owner.settled(op, outcome, s);
            }
        } finally {
            Callbacks.run(op, outcome, now);
        }
    }
}
