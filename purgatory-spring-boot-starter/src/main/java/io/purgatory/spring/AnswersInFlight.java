package io.purgatory.spring;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;

/**
 * The Spring MVC requests that wait on a keyed wait and are not complete yet. The shutdown, having
 * closed the waits, waits until these requests are complete before the web server may stop: with
 * graceful shutdown the server waits for them itself, but with {@code server.shutdown=immediate}
 * it would cut them off. Thread-safe.
 */
final class AnswersInFlight {

    @GuardedBy("this")
    private int count;

    /** A request now waits on a wait. */
    synchronized void started() {
        count++;
    }

    /** A request that waited is complete (answered, timed out, or failed). */
    synchronized void ended() {
        count--;
        if (count == 0) {
            notifyAll();
        }
    }

    /** Requests waiting on a wait, or answered and not complete yet. */
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
