package io.purgatory.bench;

import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.SystemTimerReaper;
import io.purgatory.timer.TimerTask;

/** This project's {@link SystemTimer} (default geometry: 1 ms x 1024) driven by a {@link SystemTimerReaper}. */
final class OursTimer implements TimerUnderTest {

    private final SystemTimerReaper timer;

    OursTimer(String name) {
        this.timer = SystemTimerReaper.start(name + "-reaper", new SystemTimer(name));
    }

    @Override
    public Impl impl() {
        return Impl.OURS;
    }

    @Override
    public Object newTask(long delayMs, TaskBody body) {
        return new Task(delayMs, body);
    }

    @Override
    public Object schedule(Object task) {
        timer.add((Task) task);
        return task;
    }

    @Override
    public void cancel(Object handle) {
        ((Task) handle).cancel();
    }

    @Override
    public long size() {
        return timer.size();
    }

    @Override
    public void close() {
        timer.close();
    }

    static final class Task extends TimerTask {
        private final TaskBody body;

        Task(long delayMs, TaskBody body) {
            super(delayMs);
            this.body = body;
        }

        @Override
        public void run() {
            body.fire();
        }
    }
}
