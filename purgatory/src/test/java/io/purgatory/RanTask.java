package io.purgatory;

import io.purgatory.timer.TimerTask;

/** A timer task that records that it ran: to show a timer is still open and running. */
final class RanTask extends TimerTask {
    final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

    RanTask(long delayMs) {
        super(delayMs);
    }

    @Override
    public void run() {
        runs.incrementAndGet();
    }
}
