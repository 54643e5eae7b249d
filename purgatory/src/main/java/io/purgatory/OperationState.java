package io.purgatory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The life of a {@link DelayedOperation}, in its one state word: claimed for a try, settled once,
 * finished once. Every transition is a CAS on that word; nothing here blocks.
 */
final class OperationState {

    /*
     * Implementation notes.
     *
     * The word: bits 0-1 the outcome (0 while pending, else Outcome.ordinal() + 1); the flags
     * below; bits 8-63 the watch time in microseconds, modulo 2^56 (about 2,284 years).
     *
     * (O1) The outcome leaves 0 exactly once, by the CAS in settle, and is never cleared.
     * (O2) A try runs only under the claim: TRYING, set by a CAS on a pending word without it, so
     *      at most one thread tries the operation at a time. No try starts once it is settled.
     * (O3) A check that finds the claim taken sets RETRY instead of waiting. The holder, before it
     *      clears TRYING, tries again while RETRY is set and the operation is pending and
     *      submitted. The checker's state change happens-before its CAS of RETRY, which the
     *      holder's next CAS reads, so no wake-up is lost, and no thread waits for another's try.
     * (O4) Finishing a settle (unlink, count, callbacks) happens exactly once: the settler does it
     *      if no claim was held when its CAS won, else the holder does it as it clears TRYING.
     *      Callbacks therefore never overlap a try, and a settle made inside a try (forceComplete
     *      from tryComplete, a key whose hashCode cancels the operation) is finished after it.
     * (O7) A try reports a completion as its own (checkAndComplete's count, the result of
     *      tryCompleteElseWatch) iff the operation was pending when its tryComplete was called
     *      and is completed when it returns, and tryComplete returned true, or threw having
     *      completed it: Kafka's rule, which needs no knowledge of which thread settled it.
     */

    static final long OUTCOME = 3L;
    static final long TRYING = 1L << 2;
    static final long RETRY = 1L << 3;
    static final long SUBMITTED = 1L << 4;
    static final long WATCHED = 1L << 5;
    static final long TIMED = 1L << 6;
    private static final int TIME_SHIFT = 8;
    private static final long TIME_MASK = -1L >>> TIME_SHIFT;
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final Outcome[] OUTCOMES = {null, Outcome.COMPLETED, Outcome.EXPIRED, Outcome.CANCELLED};

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(DelayedOperation.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private OperationState() {
    }

    static boolean isSettled(long s) {
        return (s & OUTCOME) != 0;
    }

    static Outcome outcome(long s) {
        return OUTCOMES[(int) (s & OUTCOME)];
    }

    static boolean wasWatched(long s) {
        return (s & WATCHED) != 0;
    }

    static boolean isSubmitted(long s) {
        return (s & SUBMITTED) != 0;
    }

    /** Settles {@code op} with {@code outcome} unless it is settled (O1); finishes it unless a try does (O4). */
    static boolean settle(DelayedOperation op, Outcome outcome) {
        for (;;) {
            long s = op.state;
            if (isSettled(s)) {
                return false;
            }
            if (STATE.compareAndSet(op, s, s | (outcome.ordinal() + 1))) {
                if ((s & TRYING) == 0) {
                    finish(op, outcome, s, WatcherList.ownerOf(op));
                }
                return true;
            }
        }
    }

    /**
     * Takes the claim for a check's try (O2). Returns false if the operation is settled or no
     * longer submitted (its submission failed), or if another try holds the claim, which is then
     * asked to try again (O3).
     */
    static boolean claim(DelayedOperation op) {
        for (;;) {
            long s = op.state;
            if (isSettled(s) || !isSubmitted(s)) {
                return false;
            }
            if ((s & TRYING) != 0) {
                if ((s & RETRY) != 0 || STATE.compareAndSet(op, s, s | RETRY)) {
                    return false;
                }
            } else if (STATE.compareAndSet(op, s, s | TRYING)) {
                return true;
            }
        }
    }

    /**
     * Takes the claim for a submission and marks the operation submitted (O5).
     *
     * @throws IllegalStateException if it is settled, or was submitted before
     */
    static void claimForSubmission(DelayedOperation op) {
        for (;;) {
            long s = op.state;
            checkSubmittable(op, s);
            if (STATE.compareAndSet(op, s, s | TRYING | SUBMITTED)) {
                return;
            }
        }
    }

    /** Throws if {@code op} cannot be submitted: it is settled, or was submitted before. */
    static void checkSubmittable(DelayedOperation op, long s) {
        if (isSettled(s)) {
            throw new IllegalStateException("operation is already settled (" + outcome(s) + "): " + op);
        }
        if ((s & (SUBMITTED | TRYING)) != 0) {
            DelayedOperationPurgatory<?> other = WatcherList.ownerOf(op);
            throw new IllegalStateException("operation was already submitted to purgatory '"
                    + (other == null ? "?" : other.name()) + "': " + op);
        }
    }

    /**
     * Runs {@code op}'s tryComplete once, the claim held (O2); anything it throws goes to the
     * error handler and counts as "not yet". Returns true iff the try completed it (O7).
     */
    static boolean tryOnce(DelayedOperation op, DelayedOperationPurgatory<?> owner) {
        if (isSettled(op.state)) {
            return false; // settled by another thread since the claim: no try starts on a settled operation
        }
        boolean completed;
        try {
            completed = op.tryComplete();
        } catch (Throwable error) {
            completed = true; // if it completed the operation before throwing, this try did (O7)
            Callbacks.reportError(owner, op, OperationErrorHandler.Callback.TRY_COMPLETE, error);
        }
        return completed && outcome(op.state) == Outcome.COMPLETED;
    }

    /**
     * Gives the claim back: first tries again while a check asked for it (O3), then finishes a
     * settle made while the claim was held (O4). Returns true iff one of those tries completed
     * the operation (O7).
     */
    static boolean release(DelayedOperation op, DelayedOperationPurgatory<?> owner) {
        boolean completed = false;
        for (;;) {
            long s = op.state;
            if (isSettled(s)) {
                if (STATE.compareAndSet(op, s, s & ~(TRYING | RETRY))) {
                    finish(op, outcome(s), s, owner);
                    return completed;
                }
            } else if ((s & RETRY) != 0) {
                if (STATE.compareAndSet(op, s, s & ~RETRY) && isSubmitted(s)) {
                    completed |= tryOnce(op, owner);
                }
            } else if (STATE.compareAndSet(op, s, s & ~TRYING)) {
                return completed;
            }
        }
    }

    /** Marks the operation watched, at {@code nowNanos} if {@code timed} (O5, O6); the claim is held. */
    static void markWatched(DelayedOperation op, boolean timed, long nowNanos) {
        long bits = WATCHED;
        if (timed) {
            bits |= TIMED | ((Math.floorDiv(nowNanos, NANOS_PER_MICRO) & TIME_MASK) << TIME_SHIFT);
        }
        for (;;) {
            long s = op.state;
            if (STATE.compareAndSet(op, s, s | bits)) {
                return;
            }
        }
    }

    /** Undoes a failed submission: no longer submitted or watched (O5); the claim is still held. */
    static void abandon(DelayedOperation op) {
        long keep = OUTCOME | TRYING | RETRY;
        for (;;) {
            long s = op.state;
            if (STATE.compareAndSet(op, s, s & keep)) {
                return;
            }
        }
    }

    /** How long the operation of word {@code s} has been watched at {@code nowNanos}; -1 if not timed (O6). */
    static long watchedNanos(long s, long nowNanos) {
        if ((s & TIMED) == 0) {
            return -1;
        }
        long now = Math.floorDiv(nowNanos, NANOS_PER_MICRO) & TIME_MASK;
        return ((now - (s >>> TIME_SHIFT)) & TIME_MASK) * NANOS_PER_MICRO;
    }

    /** Finishes a settle, exactly once (O4): the owner's bookkeeping, then the callbacks. */
    private static void finish(DelayedOperation op, Outcome outcome, long s, DelayedOperationPurgatory<?> owner) {
        try {
            if (owner != null && isSubmitted(s)) {
                owner.onSettled(op, outcome, s);
            }
        } finally {
            Callbacks.run(op, outcome, owner);
        }
    }
}
