package io.purgatory.bench;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.util.concurrent.TimeUnit;

/** Netty's {@link HashedWheelTimer}: 1 ms tick, 512 ticks per wheel, no leak detection, tasks on its worker. */
final class NettyTimer implements TimerUnderTest {

    private final HashedWheelTimer timer;

    NettyTimer(String name) {
        this.timer = new HashedWheelTimer(Threads.daemonFactory(name), 1, TimeUnit.MILLISECONDS, 512, false, -1);
        timer.start(); // not lazily inside the first measured schedule
    }

    @Override
    public Impl impl() {
        return Impl.NETTY;
    }

    @Override
    public Object newTask(long delayMs, TaskBody body) {
        return new Task(delayMs, body);
    }

    @Override
    public Object schedule(Object task) {
        Task t = (Task) task;
        return timer.newTimeout(t, t.delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void cancel(Object handle) {
        ((Timeout) handle).cancel();
    }

    @Override
    public long size() {
        return timer.pendingTimeouts();
    }

    @Override
    public void close() {
        timer.stop();
    }

    static final class Task implements io.netty.util.TimerTask {
        final long delayMs;
        private final TaskBody body;

        Task(long delayMs, TaskBody body) {
            this.delayMs = delayMs;
            this.body = body;
        }

        @Override
        public void run(Timeout timeout) {
            body.fire();
        }
    }
}
