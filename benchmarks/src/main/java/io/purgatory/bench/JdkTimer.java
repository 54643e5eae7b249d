package io.purgatory.bench;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** A one-thread {@link ScheduledThreadPoolExecutor} with remove-on-cancel (a binary heap: O(log n)). */
final class JdkTimer implements TimerUnderTest {

    private final ScheduledThreadPoolExecutor executor;

    JdkTimer(String name) {
        this.executor = new ScheduledThreadPoolExecutor(1, Threads.daemonFactory(name));
        executor.setRemoveOnCancelPolicy(true);
        executor.prestartAllCoreThreads();
    }

    @Override
    public Impl impl() {
        return Impl.JDK;
    }

    @Override
    public Object newTask(long delayMs, TaskBody body) {
        return new Task(delayMs, body);
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // the future is the handle that cancel() takes back
    public Object schedule(Object task) {
        Task t = (Task) task;
        return executor.schedule(t, t.delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void cancel(Object handle) {
        ((ScheduledFuture<?>) handle).cancel(false);
    }

    @Override
    public long size() {
        return executor.getQueue().size();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    static final class Task implements Runnable {
        final long delayMs;
        private final TaskBody body;

        Task(long delayMs, TaskBody body) {
            this.delayMs = delayMs;
            this.body = body;
        }

        @Override
        public void run() {
            body.fire();
        }
    }
}
