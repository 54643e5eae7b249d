package io.purgatory;

import java.util.Arrays;

/**
 * Per thread: the operations whose claim this thread holds for a try, innermost last, and a
 * buffer for the copies that checks take of a key's list. Confined to its thread.
 */
final class TryScope {

    /** Copies of at most this many operations reuse the buffer instead of a new array. */
    private static final int MAX_REUSED_COPY = 256;
    private static final ThreadLocal<TryScope> CURRENT = ThreadLocal.withInitial(TryScope::new);

    private DelayedOperation[] trying = new DelayedOperation[4];
    private int depth;
    private DelayedOperation[] copy = new DelayedOperation[16];
    private boolean copyInUse;

    private TryScope() {
    }

    static TryScope current() {
        return CURRENT.get();
    }

    void enter(DelayedOperation op) {
        if (depth == trying.length) {
            trying = Arrays.copyOf(trying, 2 * depth);
        }
        trying[depth++] = op;
    }

    void exit() {
        trying[--depth] = null;
    }

    /** True iff this thread holds {@code op}'s claim for a try that is running (tries nest through checks). */
    boolean isTrying(DelayedOperation op) {
        for (int i = depth - 1; i >= 0; i--) {
            if (trying[i] == op) {
                return true;
            }
        }
        return false;
    }

    /** An array of at least {@code n} slots for a check's copy; a nested check gets a new one. */
    DelayedOperation[] takeCopyBuffer(int n) {
        if (copyInUse || n > MAX_REUSED_COPY) {
            return new DelayedOperation[n];
        }
        if (copy.length < n) {
            copy = new DelayedOperation[Math.max(n, 2 * copy.length)];
        }
        copyInUse = true;
        return copy;
    }

    /** Gives back a buffer from {@link #takeCopyBuffer}, cleared up to {@code n}: it holds no operation. */
    void giveCopyBuffer(DelayedOperation[] buffer, int n) {
        Arrays.fill(buffer, 0, n, null);
        if (buffer == copy) {
            copyInUse = false;
        }
    }
}
