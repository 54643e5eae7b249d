package io.purgatory.spring;

import java.time.Duration;

/**
 * The Spring MVC requests answered from a keyed wait whose answer is not written yet. The
 * shutdown, having closed the waits, waits until their answers are written before the web server
 * may stop: with graceful shutdown the server waits for them itself, but with
 * {@code server.shutdown=immediate} it would cut them off. Thread-safe.
 */
final class AnswersInFlight {

    private int count; // guarded by this

    /** A request now waits on a wait. */
    synchronized void started() {
        count++;
    }

    /** A request that waited has ended (its answer is written, or it failed). */
    synchronized void ended() {
        count--;
        if (count == 0) {
            notifyAll();
        }
    }

    /** Requests waiting on a wait, or whose answer is being written. */
    synchronized int count() {
        return count;
    }

    /**
     * Waits until no request is in flight, at most {@code max}; returns how many still are.
     *
     * @throws InterruptedException if the thread is interrupted meanwhile
     */
    synchronized int awaitNone(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        for (long left = max.toNanos(); count > 0 && left > 0; left = deadline - System.nanoTime()) {
            wait(Math.max(1, left / 1_000_000));
        }
        return count;
    }
}
