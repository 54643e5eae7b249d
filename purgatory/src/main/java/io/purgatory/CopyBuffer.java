package io.purgatory;

import java.util.Arrays;

/**
 * Per thread, the buffer a check copies a key's watch list into, under the watcher list's lock, before
 * it tries the operations with no lock held. Reused while it is small; a nested check (from a
 * callback) gets an array of its own. Cleared after each use, so it holds no operation.
 */
final class CopyBuffer {

    /** Copies of at most this many nodes reuse the buffer instead of a new array. */
    private static final int MAX_REUSED = 256;
    private static final ThreadLocal<CopyBuffer> CURRENT = ThreadLocal.withInitial(CopyBuffer::new);

    private WatchLink[] buffer = new WatchLink[16];
    private boolean inUse;

    private CopyBuffer() {
    }

    /** The calling thread's buffer. */
    static CopyBuffer current() {
        return CURRENT.get();
    }

    /** Gives back an array from {@link #take}, cleared up to {@code n}. */
    void give(WatchLink[] array, int n) {
        Arrays.fill(array, 0, n, null);
        if (array == buffer) {
            inUse = false;
        }
    }

    /** An array of at least {@code n} slots. */
    WatchLink[] take(int n) {
        if (inUse || n > MAX_REUSED) {
            return new WatchLink[n];
        }
        if (buffer.length < n) {
            buffer = new WatchLink[Math.max(n, 2 * buffer.length)];
        }
        inUse = true;
        return buffer;
    }
}
