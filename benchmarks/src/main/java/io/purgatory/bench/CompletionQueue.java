package io.purgatory.bench;

import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * TestPurgatoryPerformance's completion thread: a DelayQueue polled (up to 100 ms at a time) by one
 * thread that force-completes each operation at its completion time.
 */
final class CompletionQueue implements AutoCloseable {

    /** The completion thread's name. */
    static final String THREAD_NAME = "completion-thread";

    private final DelayQueue<Scheduled> queue = new DelayQueue<>();
    private final Thread thread;
    private volatile boolean closed;

    CompletionQueue() {
        this.thread = Threads.start(THREAD_NAME, this::run);
    }

    void add(Completable operation, long completesAtMs) {
        queue.offer(new Scheduled(operation, completesAtMs));
    }

    @Override
    public void close() {
        closed = true;
        Threads.joinAll(thread);
    }

    private void run() {
        while (!closed) {
            try {
                Scheduled scheduled = queue.poll(100, TimeUnit.MILLISECONDS);
                if (scheduled != null) {
                    scheduled.operation.forceComplete();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static final class Scheduled implements Delayed {
        final Completable operation;
        final long completesAtMs;

        Scheduled(Completable operation, long completesAtMs) {
            this.operation = operation;
            this.completesAtMs = completesAtMs;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Math.max(completesAtMs - System.currentTimeMillis(), 0), TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(completesAtMs, ((Scheduled) other).completesAtMs);
        }
    }
}
