package io.purgatory.internal;

import java.util.Arrays;

/**
 * A thread's buffer that a check copies a key's operations into, under the watcher list's lock,
 * before it tries them with no lock held. Reused while it is small; a nested check (from a
 * callback) gets an array of its own. Cleared after each use, so it holds no operation.
 */
final class CopyBuffer {

    /** Copies of at most this many operations reuse the buffer instead of a new array. */
    private static final int MAX_REUSED = 256;

    private Operation[] buffer = new Operation[16];
    private boolean inUse;

    /** An array of at least {@code n} slots. */
    Operation[] take(int n) {
        if (inUse || n > MAX_REUSED) {
            return new Operation[n];
        }
        if (buffer.length < n) {
            buffer = new Operation[Math.max(n, 2 * buffer.length)];
        }
        inUse = true;
        return buffer;
    }

    /** Gives back an array from {@link #take}, cleared up to {@code n}. */
    void give(Operation[] array, int n) {
        Arrays.fill(array, 0, n, null);
        if (array == buffer) {
            inUse = false;
        }
    }
}
