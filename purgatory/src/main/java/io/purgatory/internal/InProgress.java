package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import java.util.ArrayList;
import java.util.IdentityHashMap;

/**
 * What the current thread is in the middle of: the operations whose claim it holds (a check's or
 * a submission's, with the tries made under it), the tries of operations claimed inside another's
 * claim, the owners whose expiries it runs, and how deep it is in code the library called. It
 * also keeps the thread's queue of callbacks and its copy buffer, so that a check or a settle
 * looks the thread up once. A check that finds the claim of an operation this thread holds is
 * checking its own keys from inside that operation's try ({@link OperationState} O4); a close
 * never waits while the thread is in code the library called ({@link CloseOnce}).
 */
final class InProgress {

    private static final ThreadLocal<InProgress> CURRENT = ThreadLocal.withInitial(InProgress::new);

    final Callbacks callbacks = new Callbacks();
    /** The array a visit copies a key's operations into (WatcherList K6); null while a visit holds it. */
    Operation[] copies = new Operation[16];
    /** Calls into user code on this thread's stack (UserCode). */
    int userCode;
    /** When the outermost close on this thread's stack began (System.nanoTime), if closeDepth > 0 (CloseOnce). */
    long closeStartNanos;
    /** Closes on this thread's stack: the outermost one's bound is every nested close's (CloseOnce). */
    int closeDepth;
    /** The claims this thread holds, the last taken last. */
    private final ArrayList<Operation> claims = new ArrayList<>(4);
    /** Checks and submissions on this thread's stack: the outermost one is the span of the counts below. */
    private int checkDepth;
    /**
     * Tries of the operations claimed while another claim was held, since the outermost check (or
     * submission) began; cleared when it ends. Null until the first nested claim.
     */
    private IdentityHashMap<Operation, int[]> nestedTries;
    /** The owners of the expiries on this thread's stack, the innermost last. */
    private final ArrayList<Owner> expiries = new ArrayList<>(2);

    private InProgress() {
    }

    static InProgress current() {
        return CURRENT.get();
    }

    /** This thread took {@code op}'s claim. */
    void holdClaim(Operation op) {
        claims.add(op);
    }

    /** The claim taken last was given back. */
    void dropClaim() {
        claims.remove(claims.size() - 1);
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
    boolean holdsClaim(Operation op) {
        for (int i = claims.size() - 1; i >= 0; i--) {
            if (claims.get(i) == op) { // by identity: an operation may override equals
                return true;
            }
        }
        return false;
    }

    /** True iff the claim taken last was taken inside another (the outermost is not nested). */
    boolean lastClaimIsNested() {
        return claims.size() > 1;
    }

    /** Tries of {@code op} made under nested claims since the outermost check began. */
    int nestedTries(Operation op) {
        if (nestedTries == null || nestedTries.isEmpty()) {
            return 0;
        }
        int[] count = nestedTries.get(op);
        return count == null ? 0 : count[0];
    }

    /** A try of {@code op} under a nested claim. */
    void countNestedTry(Operation op) {
        if (nestedTries == null) {
            nestedTries = new IdentityHashMap<>();
        }
        nestedTries.computeIfAbsent(op, unused -> new int[1])[0]++;
    }

    /** An expiry of one of {@code owner}'s operations begins on this thread. */
    void beginExpiry(Owner owner) {
        expiries.add(owner);
    }

    void endExpiry() {
        expiries.remove(expiries.size() - 1);
    }

    /** How many expiries of {@code owner}'s operations are on this thread's stack. */
    int expiriesOf(Owner owner) {
        int n = 0;
        for (Owner o : expiries) {
            if (o == owner) {
                n++;
            }
        }
        return n;
    }
}
