package io.purgatory;

import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * What the current thread is in the middle of: the operations whose claim it holds (a check's or a
 * submission's, with the tries made under it), the tries of operations claimed inside another's
 * claim, and the owners whose expiries it is running. A check that finds the claim of an operation
 * this thread holds is checking its own keys from inside that operation's try
 * ({@link OperationState}); a close never waits for work on its own stack ({@link Closing}).
 */
final class InProgress {

    private static final ThreadLocal<InProgress> CURRENT = ThreadLocal.withInitial(InProgress::new);

    private DelayedOperation[] claims = new DelayedOperation[4];
    private int claimDepth;
    /** Claims taken when the stack could not grow: popped first, so the stack stays balanced. */
    private int unrecorded;
    /** Checks and submissions on this thread's stack: the outermost one is the span of the counts below. */
    private int checkDepth;
    /**
     * Tries of the operations claimed while another claim was held, since the outermost check (or
     * submission) began; cleared when it ends. Null until the first nested claim.
     */
    private IdentityHashMap<DelayedOperation, int[]> nestedTries;
    private Owner[] expiries = new Owner[2];
    private int expiryDepth;

    private InProgress() {
    }

    static InProgress current() {
        return CURRENT.get();
    }

    /** This thread took {@code op}'s claim. */
    void holdClaim(DelayedOperation op) {
        if (claimDepth == claims.length) {
            try {
                claims = Arrays.copyOf(claims, 2 * claimDepth);
            } catch (OutOfMemoryError cannotGrow) {
                unrecorded++; // it cannot be found as held: a self-check of it asks as another thread would
                return;
            }
        }
        claims[claimDepth++] = op;
    }

    /** The claim taken last was given back. */
    void dropClaim() {
        if (unrecorded > 0) {
            unrecorded--;
            return;
        }
        claims[--claimDepth] = null;
    }

    /** A check or a submission begins on this thread. */
    void enterCheck() {
        checkDepth++;
    }

    /** The check or submission begun last ended: if it was the outermost, its counts go (O4). */
    void exitCheck() {
        if (--checkDepth == 0 && nestedTries != null && !nestedTries.isEmpty()) {
            nestedTries.clear();
        }
    }

    /** True iff {@code op}'s claim is held by this thread. */
    boolean holdsClaim(DelayedOperation op) {
        for (int i = claimDepth - 1; i >= 0; i--) {
            if (claims[i] == op) {
                return true;
            }
        }
        return false;
    }

    /** True iff this thread holds a claim: a claim it takes now is nested in another's. */
    boolean holdsAnyClaim() {
        return claimDepth + unrecorded > 0;
    }

    /** True iff the claim taken last was taken inside another (the outermost is not nested). */
    boolean lastClaimIsNested() {
        return claimDepth + unrecorded > 1;
    }

    /** Tries of {@code op} made under nested claims since the outermost check began; 0 at once if there were none. */
    int nestedTries(DelayedOperation op) {
        if (nestedTries == null || nestedTries.isEmpty()) {
            return 0;
        }
        int[] count = nestedTries.get(op);
        return count == null ? 0 : count[0];
    }

    /** A try of {@code op} under a nested claim. */
    void countNestedTry(DelayedOperation op) {
        if (nestedTries == null) {
            nestedTries = new IdentityHashMap<>();
        }
        nestedTries.computeIfAbsent(op, unused -> new int[1])[0]++;
    }

    /** An expiry of one of {@code owner}'s operations begins on this thread. */
    void beginExpiry(Owner owner) {
        if (expiryDepth == expiries.length) {
            expiries = Arrays.copyOf(expiries, 2 * expiryDepth);
        }
        expiries[expiryDepth++] = owner;
    }

    void endExpiry() {
        expiries[--expiryDepth] = null;
    }

    /** How many expiries of {@code owner}'s operations are on this thread's stack. */
    int expiriesOf(Owner owner) {
        int n = 0;
        for (int i = 0; i < expiryDepth; i++) {
            if (expiries[i] == owner) {
                n++;
            }
        }
        return n;
    }
}
