package io.purgatory.concurrency.timer;

import io.purgatory.timer.TimerTask;
import java.util.concurrent.atomic.AtomicInteger;

/** A task for the timer races: counts its runs. */
final class CountingTask extends TimerTask {

    final AtomicInteger runs = new AtomicInteger();

    CountingTask(long delayMs) {
        super(delayMs);
    }

    @Override
    public void run() {
        runs.incrementAndGet();
    }
}
