package io.purgatory.timer;

import java.util.concurrent.atomic.AtomicInteger;

/** A test task that counts its runs, then runs an optional body, which a test may replace before it runs. */
class CountingTask extends TimerTask {

    private final AtomicInteger runs = new AtomicInteger();
    volatile Runnable body;

    CountingTask(long delayMs) {
        this(delayMs, () -> { });
    }

    CountingTask(long delayMs, Runnable body) {
        super(delayMs);
        this.body = body;
    }

    @Override
    public void run() {
        runs.incrementAndGet();
        body.run();
    }

    int runs() {
        return runs.get();
    }
}
