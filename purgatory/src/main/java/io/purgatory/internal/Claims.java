package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;

import static io.purgatory.internal.OperationState.CLAIM_BITS;
import static io.purgatory.internal.OperationState.COMPLETED;
import static io.purgatory.internal.OperationState.COUNTED;
import static io.purgatory.internal.OperationState.MAX_TRIES_PER_CHECK;
import static io.purgatory.internal.OperationState.OUTCOME;
import static io.purgatory.internal.OperationState.BY_HOLDER;
import static io.purgatory.internal.OperationState.RETRY;
import static io.purgatory.internal.OperationState.SELF_RETRY;
import static io.purgatory.internal.OperationState.STATE;
import static io.purgatory.internal.OperationState.SUBMITTED;
import static io.purgatory.internal.OperationState.TRYING;
import static io.purgatory.internal.OperationState.isSettled;
import static io.purgatory.internal.OperationState.isSubmitted;

/**
 * The claim protocol: how a check or a submission tries an operation, one thread at a time and
 * never waiting for another's try, on the state word of {@link OperationState} (whose O2-O8 it
 * implements): take the claim, try, and give the claim back, trying again while asked to and
 * finishing a settle made meanwhile.
 */
final class Claims {

    private Claims() {
    }


    /**
     * A check's visit of {@code op}: one try under the claim, then the claim given back, whatever
     * happens. Returns true iff a try of this visit completed it (O7).
     */
    static boolean check(Operation op) {
        InProgress progress = InProgress.current();
        if (!claim(op, progress)) {
            return false;
        }
        boolean completed = false;
        try {
            completed = tryOnce(op, progress);
        } finally {
            completed |= release(op, progress);
        }
        return completed;
    }

    /**
     * Takes the claim for a check's try (O2), unless this thread has tried it as often as one check
     * may from inside another's claim (O4). Returns false if the operation is settled or not
     * submitted, or if a try holds the claim, which is then asked to try again (O3, O4).
     */
    private static boolean claim(Operation op, InProgress progress) {
        for (;;) {
            long s = op.state;
            if (isSettled(s) || !isSubmitted(s)) {
                return false;
            }
            if ((s & TRYING) != 0) {
                long ask = progress.holdsClaim(op) ? SELF_RETRY : RETRY;
                if ((s & ask) != 0 || STATE.compareAndSet(op, s, s | ask)) {
                    return false;
                }
            } else if (progress.nestedTries(op) >= MAX_TRIES_PER_CHECK) {
                return false; // (O4)
            } else if (STATE.compareAndSet(op, s, s | TRYING | OperationState.CHECKED)) {
                progress.holdClaim(op);
                return true;
            }
        }
    }

    /**
     * Takes the claim for a submission to {@code owner}, marks the operation submitted and makes
     * {@code owner} its owner (O6).
     *
     * @throws IllegalStateException if it is settled, or was submitted before
     */
    static void claimForSubmission(Operation op, Owner owner, InProgress progress) {
        for (;;) {
            long s = op.state;
            OperationState.checkSubmittable(op, s);
            if (STATE.compareAndSet(op, s, s | TRYING | SUBMITTED)) {
                op.owner = owner;
                progress.holdClaim(op);
                return;
            }
        }
    }

    /** Runs {@code op}'s tryComplete once under its claim (O2); true iff the try completed it (O7). */
    static boolean tryOnce(Operation op, InProgress progress) {
        if (isSettled(op.state)) {
            return false; // settled since the claim was taken: no try starts on a settled word (O2)
        }
        if (progress.lastClaimIsNested()) {
            progress.countNestedTry(op); // (O4)
        }
        UserCode.call(op, UserCode.TRY_COMPLETE, progress);
        return (op.state & (OUTCOME | BY_HOLDER)) == (COMPLETED | BY_HOLDER);
    }

    /**
     * Gives the claim back: first tries again while a check asked for it (O3, O4), then finishes a
     * settle made while the claim was held, and only then clears the claim (O5). Returns true iff
     * one of those tries completed the operation (O7).
     */
    static boolean release(Operation op, InProgress progress) {
        boolean completed = false;
        int selfRetries = 0;
        boolean held = true;
        try {
            for (;;) {
                long s = op.state;
                if (isSettled(s)) {
                    held = false;
                    progress.dropClaim(); // its tries are over: a check from its callbacks is not one of them (O4)
                    finishHeld(op, s, progress);
                    return completed;
                }
                if ((s & RETRY) != 0) {
                    if (STATE.compareAndSet(op, s, s & ~(RETRY | SELF_RETRY)) && isSubmitted(s)) {
                        completed |= tryOnce(op, progress);
                    }
                } else if ((s & SELF_RETRY) != 0) {
                    if (STATE.compareAndSet(op, s, s & ~SELF_RETRY) && isSubmitted(s)
                            && mayRetryForItself(op, progress, ++selfRetries)) {
                        completed |= tryOnce(op, progress);
                    }
                } else if (STATE.compareAndSet(op, s, s & ~TRYING)) {
                    return completed;
                }
            }
        } finally {
            if (held) {
                progress.dropClaim();
            }
        }
    }

    /** Whether a self-check's request for another try is within the bound of one check (O4). */
    private static boolean mayRetryForItself(Operation op, InProgress progress, int selfRetries) {
        if (progress.lastClaimIsNested()) {
            return progress.nestedTries(op) < MAX_TRIES_PER_CHECK;
        }
        return selfRetries < MAX_TRIES_PER_CHECK; // the first try and MAX - 1 retries
    }

    /** Finishes a settle made while this thread held the claim, then clears the claim (O5, O8). */
    private static void finishHeld(Operation op, long s, InProgress progress) {
        Owner counted = (s & COUNTED) != 0 ? op.owner : null;
        try {
            if (counted != null) {
                progress.beginExpiry(counted.engine());
            }
            try {
                OperationState.finish(op, (int) (s & OUTCOME), s, false);
            } finally {
                if (counted != null) {
                    progress.endExpiry();
                }
            }
        } finally {
            STATE.getAndBitwiseAnd(op, ~CLAIM_BITS);
            if (counted != null) {
                counted.expiryEnds();
            }
        }
    }
}
