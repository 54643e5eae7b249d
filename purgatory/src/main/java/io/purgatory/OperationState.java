package io.purgatory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The life of a {@link DelayedOperation}, in its one state word: submitted once, claimed for each
 * try, settled once, finished once. Every transition is a CAS on that word; nothing here blocks.
 */
final class OperationState {

    /*
     * Implementation notes.
     *
     * The word: bits 0-1 the outcome (0 while pending, else Outcome.ordinal() + 1); bits 2-8 the
     * flags below; bits 9-63 the watch time in microseconds, modulo 2^55 (about 1,142 years).
     *
     * (O1) The outcome leaves 0 exactly once, by the CAS in settle, and is never cleared.
     * (O2) A try runs only under the claim: TRYING, set by a CAS on a pending word without it, so
     *      at most one thread tries the operation at a time, and no try starts on a settled word.
     *      A settle that takes no claim (a cancel, an expiry, a close) may still land while a try
     *      runs: that tryComplete then sees isCompleted() turn true and its forceComplete return
     *      false, and the callbacks wait until it returns (O5).
     * (O3) A check from another thread that finds the claim taken sets RETRY instead of waiting;
     *      the holder tries again while RETRY is set and the operation is pending. The checker's
     *      state change happens-before its CAS of RETRY, which the holder's next CAS reads: no
     *      wake-up from another thread is lost, and no thread waits for another's try.
     * (O4) A check made by a thread that holds the claim (a tryComplete that checks its own keys,
     *      directly or through a callback it runs) sets SELF_RETRY instead, and an operation this
     *      thread claims while it holds another's claim is a nested one: across the outermost
     *      check (or submission) on this thread, each operation is tried at most
     *      MAX_TRIES_PER_CHECK times at this thread's own request (InProgress counts the nested
     *      tries; a claim over the count is not taken), so tries that check keys they watch,
     *      however many and however nested, end in O(operations) tries instead of spinning.
     * (O5) Finishing a settle (its owner's booking, then the callbacks) happens exactly once: by
     *      the settler if no claim was held when its CAS won, else by the holder as it gives the
     *      claim back, before it clears TRYING. Callbacks therefore never overlap a try, and a
     *      settled word without TRYING is finished or being finished by its settler.
     * (O6) The owner is written to the operation's `home` under the submission's claim, before
     *      the operation is on any list or timer, and cleared under it by disown once a failed
     *      submission is undone. While the operation is linked on one key, `home` names that
     *      key's list instead, which leads to the same owner (ownerOf): whichever of the two a
     *      thread reads, it finds the owner. The thread that finishes a settle reads it after its
     *      CAS (or claim), which came after the submission let its claim go.
     * (O7) A try reports a completion as its own (checkAndComplete's count, the result of
     *      tryCompleteElseWatch) iff the operation was pending when its tryComplete was called
     *      and is completed when it returns, and tryComplete returned true, or threw having
     *      completed it: Kafka's rule, which needs no knowledge of which thread settled it.
     * (O8) An expiry counts itself in flight with its owner before its CAS and until its
     *      callbacks have run. If a claim was held at its CAS, the CAS also sets COUNTED, and the
     *      holder ends the count once it has finished the settle, so a close that waits for the
     *      owner's expiries in flight also waits for that one.
     * (O9) A settle by its purgatory's close sets BY_CLOSE in the same CAS as the outcome, so the
     *      wait's end is CLOSED exactly when the close settled it: an expiry, a cancel or an
     *      event that wins against a close keeps its own outcome, even with the policy's.
     */

    static final long OUTCOME = 3L;
    static final long TRYING = 1L << 2;
    static final long RETRY = 1L << 3;
    static final long SUBMITTED = 1L << 4;
    static final long WATCHED = 1L << 5;
    static final long TIMED = 1L << 6;
    static final long SELF_RETRY = 1L << 7;
    /** An expiry handed to a claim's holder to finish: its owner counts it in flight until then (O8). */
    static final long COUNTED = 1L << 8;
    /** Settled by its purgatory's close: its sweep, or a submission that found the purgatory closing (O9). */
    static final long BY_CLOSE = 1L << 9;
    /** Tries of an operation in one check that its own thread asks for (O4). */
    static final int MAX_TRIES_PER_CHECK = 3;
    private static final int TIME_SHIFT = 10;
    private static final long TIME_MASK = -1L >>> TIME_SHIFT;
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long CLAIM_BITS = TRYING | RETRY | SELF_RETRY;
    private static final Outcome[] OUTCOMES = {null, Outcome.COMPLETED, Outcome.EXPIRED, Outcome.CANCELLED};

    /** How a settle treats an operation and its callbacks. */
    private enum Mode {
        /** Any operation; callbacks after the one running on this thread (Q1). */
        ANY,
        /** Submitted operations only (a sweep of close or cancelForKey: not one being undone, N2). */
        SUBMITTED_ONLY,
        /** Submitted only, and its callbacks run before the settle returns, even inside a callback (close, N4). */
        SUBMITTED_NOW,
        /** As ANY, by a submission that found its purgatory closing (O9). */
        CLOSING
    }

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

    /** True iff {@code op} is settled, or a check asked the holder of its claim to try again (O3). */
    static boolean isSettledOrAskedToRetry(DelayedOperation op) {
        long s = op.state;
        return isSettled(s) || (s & RETRY) != 0;
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

    /** True iff the settle of word {@code s} was its purgatory's close's (O9). */
    static boolean wasSettledByClose(long s) {
        return (s & BY_CLOSE) != 0;
    }

    static boolean isSubmitted(long s) {
        return (s & SUBMITTED) != 0;
    }

    /** True iff {@code s} is settled and a claim's holder has yet to finish it (O5). */
    static boolean isBeingFinishedByAHolder(long s) {
        return isSettled(s) && (s & TRYING) != 0;
    }

    /** Settles {@code op} with {@code outcome} unless it is settled (O1); finishes it unless a claim is held (O5). */
    static boolean settle(DelayedOperation op, Outcome outcome) {
        return settle(op, outcome, Mode.ANY);
    }

    /**
     * Settles {@code op}, if it is submitted (to the purgatory whose sweep found it), with
     * {@code outcome}: cancelForKey's settle, which must not reach an operation whose failed
     * submission is being undone (Engine N2). Otherwise as {@link #settle}.
     */
    static boolean settleIfSubmitted(DelayedOperation op, Outcome outcome) {
        return settle(op, outcome, Mode.SUBMITTED_ONLY);
    }

    /**
     * A close's settle of {@code op}: as {@link #settleIfSubmitted}, and its callbacks run before
     * this returns, also when called from inside a callback (Closing N4). Unless a claim is held:
     * its holder finishes it.
     */
    static boolean settleNow(DelayedOperation op, Outcome outcome) {
        return settle(op, outcome, Mode.SUBMITTED_NOW);
    }

    /**
     * A submission's settle of {@code op}, its claim held, because its purgatory is closing (the
     * close's sweep may have missed it, or the timer is closed): settled by the close (O9).
     */
    static boolean settleForClose(DelayedOperation op, Outcome outcome) {
        return settle(op, outcome, Mode.CLOSING);
    }

    private static boolean settle(DelayedOperation op, Outcome outcome, Mode mode) {
        boolean submittedOnly = mode == Mode.SUBMITTED_ONLY || mode == Mode.SUBMITTED_NOW;
        long bits = (outcome.ordinal() + 1) | (mode == Mode.SUBMITTED_NOW || mode == Mode.CLOSING ? BY_CLOSE : 0);
        for (;;) {
            long s = op.state;
            if (isSettled(s) || (submittedOnly && !isSubmitted(s))) {
                return false;
            }
            if (STATE.compareAndSet(op, s, s | bits)) {
                if ((s & TRYING) == 0) {
                    finish(op, outcome, s | bits, mode == Mode.SUBMITTED_NOW);
                }
                return true;
            }
        }
    }

    /**
     * The timer's expiry of {@code op}: a settle its owner counts as in flight until its callbacks
     * have run, here or, if a try holds the claim, on the holder's thread (O8).
     */
    static void expire(DelayedOperation op) {
        Owner owner = ownerOf(op);
        if (owner == null) { // never submitted: nobody waits for it
            settle(op, Outcome.EXPIRED);
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
    private static boolean expireSubmitted(DelayedOperation op) {
        for (;;) {
            long s = op.state;
            if (isSettled(s) || !isSubmitted(s)) {
                return false; // not one whose failed submission is being undone (Engine N2)
            }
            long held = s & TRYING;
            long code = Outcome.EXPIRED.ordinal() + 1L;
            if (STATE.compareAndSet(op, s, s | code | (held != 0 ? COUNTED : 0))) {
                if (held == 0) {
                    finish(op, Outcome.EXPIRED, s, false);
                }
                return held != 0;
            }
        }
    }

    /**
     * Takes the claim for a check's try (O2), unless this thread has tried it as often as one check
     * may from inside another's claim (O4). Returns false if the operation is settled or no longer
     * submitted, or if a try holds the claim, which is then asked to try again (O3, O4).
     */
    private static boolean claim(DelayedOperation op, InProgress progress) {
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
                return false; // (O4): this thread's checks have tried it enough in this check
            } else if (STATE.compareAndSet(op, s, s | TRYING)) {
                progress.holdClaim(op);
                return true;
            }
        }
    }

    /**
     * A check's visit of {@code op}: one try under the claim, then the claim given back, whatever
     * happens. Returns true iff a try of this visit completed it (O7).
     */
    static boolean check(DelayedOperation op) {
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
     * Takes the claim for a submission to {@code owner}, marks the operation submitted and stores
     * its owner (O6).
     *
     * @throws IllegalStateException if it is settled, or was submitted before
     */
    static void claimForSubmission(DelayedOperation op, Owner owner, InProgress progress) {
        for (;;) {
            long s = op.state;
            checkSubmittable(op, s);
            if (STATE.compareAndSet(op, s, s | TRYING | SUBMITTED)) {
                op.home = owner;
                progress.holdClaim(op);
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
            Owner other = ownerOf(op);
            throw new IllegalStateException("operation was already submitted to purgatory '"
                    + (other == null ? "?" : other.name()) + "': " + op);
        }
    }

    /**
     * Runs {@code op}'s tryComplete once, its claim held by this thread (O2); what it throws is
     * reported and counts as "not yet" (UserCode). Returns true iff the try completed it (O7).
     */
    static boolean tryOnce(DelayedOperation op, InProgress progress) {
        if (isSettled(op.state)) {
            return false; // settled since the claim was taken: no try starts on a settled word (O2)
        }
        if (progress.lastClaimIsNested()) {
            progress.countNestedTry(op); // (O4)
        }
        boolean completed = UserCode.tryComplete(op);
        return completed && outcome(op.state) == Outcome.COMPLETED;
    }

    /**
     * Gives the claim back: first tries again while a check asked for it (O3, O4), then finishes a
     * settle made while the claim was held, and only then clears the claim (O5). Returns true iff
     * one of those tries completed the operation (O7).
     */
    static boolean release(DelayedOperation op, InProgress progress) {
        boolean completed = false;
        int selfRetries = 0;
        boolean recorded = true;
        try {
            for (;;) {
                long s = op.state;
                if (isSettled(s)) {
                    recorded = false;
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
            if (recorded) {
                progress.dropClaim();
            }
        }
    }

    /** Whether a self-check's request for another try is within the bound of one check (O4). */
    private static boolean mayRetryForItself(DelayedOperation op, InProgress progress, int selfRetries) {
        if (progress.lastClaimIsNested()) {
            return progress.nestedTries(op) < MAX_TRIES_PER_CHECK;
        }
        return selfRetries < MAX_TRIES_PER_CHECK; // the first try and MAX - 1 retries
    }

    /** Finishes a settle made while this thread held the claim, then clears the claim (O5, O8). */
    private static void finishHeld(DelayedOperation op, long s, InProgress progress) {
        Owner owner = (s & COUNTED) != 0 ? ownerOf(op) : null;
        try {
            if (owner != null) {
                progress.beginExpiry(owner.engine());
            }
            try {
                finish(op, outcome(s), s, false);
            } finally {
                if (owner != null) {
                    progress.endExpiry();
                }
            }
        } finally {
            STATE.getAndBitwiseAnd(op, ~CLAIM_BITS);
            if (owner != null) {
                owner.expiryEnds();
            }
        }
    }

    /** Marks the operation watched, at {@code nowNanos} if {@code timed}; the claim is held. */
    static void markWatched(DelayedOperation op, boolean timed, long nowNanos) {
        long bits = WATCHED;
        if (timed) {
            bits |= TIMED | ((Math.floorDiv(nowNanos, NANOS_PER_MICRO) & TIME_MASK) << TIME_SHIFT);
        }
        STATE.getAndBitwiseOr(op, bits);
    }

    /**
     * Undoes a failed submission, the claim still held: no longer submitted or watched, unless a
     * settle landed meanwhile. Returns false, changing nothing, if it did: that settle stands and
     * the claim's release finishes it. The caller unlinks it, then calls {@link #disown}.
     */
    static boolean abandon(DelayedOperation op) {
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

    /** Makes {@code owner} the owner of {@code op}: its submission holds the claim and has linked nothing yet (O6). */
    static void reown(DelayedOperation op, Owner owner) {
        op.home = owner;
    }

    /** Forgets the owner of an abandoned operation, unlinked, the claim still held (O6). */
    static void disown(DelayedOperation op) {
        op.home = null;
    }

    /**
     * The owner {@code op} was submitted to, or null if never (O6): its home, or the owner of the
     * one-key list its home names.
     */
    static Owner ownerOf(DelayedOperation op) {
        Object home = op.home;
        return home instanceof Watchers list ? list.watcherList.owner : (Owner) home;
    }

    /** How long the operation of word {@code s} has been watched at {@code nowNanos}; -1 if not timed. */
    static long watchedNanos(long s, long nowNanos) {
        if ((s & TIMED) == 0) {
            return -1;
        }
        long now = Math.floorDiv(nowNanos, NANOS_PER_MICRO) & TIME_MASK;
        return ((now - (s >>> TIME_SHIFT)) & TIME_MASK) * NANOS_PER_MICRO;
    }

    /**
     * Finishes a settle, exactly once (O5): the owner's booking, then the callbacks, whatever the
     * booking does; the callbacks before returning if {@code now} (Callbacks Q3).
     */
    private static void finish(DelayedOperation op, Outcome outcome, long s, boolean now) {
        Owner owner = ownerOf(op); // (O6)
        try {
            if (owner != null && isSubmitted(s)) {
                owner.settled(op, outcome, s);
            }
        } finally {
            if (now) {
                Callbacks.runNow(op, outcome);
            } else {
                Callbacks.run(op, outcome);
            }
        }
    }
}
