package io.purgatory;

/**
 * What the current thread is in the middle of: the operations whose claim it holds (their tries
 * are on its stack) and the owners whose expiries it is running. A check that finds the claim of
 * an operation this thread holds is checking its own keys from inside the operation's try
 * ({@link OperationState}); a close never waits for work on its own stack ({@link Engine}).
 */
final class InProgress {

    private static final ThreadLocal<InProgress> CURRENT = ThreadLocal.withInitial(InProgress::new);

    private DelayedOperation[] claims = new DelayedOperation[4];
    private int claimDepth;
    private Owner[] expiries = new Owner[2];
    private int expiryDepth;

    private InProgress() {
    }

    static InProgress current() {
        return CURRENT.get();
    }

    /** This thread took {@code op}'s claim for a try. */
    void holdClaim(DelayedOperation op) {
        if (claimDepth == claims.length) {
            claims = java.util.Arrays.copyOf(claims, 2 * claimDepth);
        }
        claims[claimDepth++] = op;
    }

    /** The try of the last claim taken returned. */
    void dropClaim() {
        claims[--claimDepth] = null;
    }

    /** True iff a try of {@code op} is on this thread's stack. */
    boolean holdsClaim(DelayedOperation op) {
        for (int i = claimDepth - 1; i >= 0; i--) {
            if (claims[i] == op) {
                return true;
            }
        }
        return false;
    }

    /** An expiry of one of {@code owner}'s operations begins on this thread. */
    void beginExpiry(Owner owner) {
        if (expiryDepth == expiries.length) {
            expiries = java.util.Arrays.copyOf(expiries, 2 * expiryDepth);
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
