package io.purgatory.bench;

import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.apache.kafka.server.util.timer.TimerTask;

/** Kafka's {@link SystemTimer} (1 ms tick, 20 buckets) driven by its {@link SystemTimerReaper}. */
final class KafkaTimer implements TimerUnderTest {

    private final SystemTimerReaper timer;

    KafkaTimer(String name) {
        this.timer = new SystemTimerReaper(name + "-reaper", new SystemTimer(name));
    }

    @Override
    public Impl impl() {
        return Impl.KAFKA;
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
        try {
            timer.close(); // stops the reaper, then the timer's executor (both non-daemon)
        } catch (Exception e) {
            throw new IllegalStateException("Kafka timer close failed", e);
        }
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
