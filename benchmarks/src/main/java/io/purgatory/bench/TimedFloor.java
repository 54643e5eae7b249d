package io.purgatory.bench;

import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.SystemTimerReaper;
import io.purgatory.timer.TimerTask;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * Workload 5's second yardstick: the tool's floor (a request is a flag) plus the one thing every
 * purgatory adds to each request, a timer entry. A request is its own entry on this project's
 * {@link SystemTimer}, driven by its reaper as a purgatory's timer is: scheduled when submitted,
 * cancelled when the completion thread forces it, fired when it is due. No lists, no keys, no
 * counters. What it sustains bounds what a purgatory with a timer can sustain in this tool.
 */
final class TimedFloor implements PurgatoryUnderTest {

    private final SystemTimer timer;
    private final SystemTimerReaper reaper;

    TimedFloor(String name) {
        this.timer = new SystemTimer(name);
        this.reaper = SystemTimerReaper.start("ExpirationReaper-" + name, timer);
    }

    @Override
    public Impl impl() {
        return Impl.TIMED_FLOOR;
    }

    @Override
    public Completable newOperation(OpBody body, long delayMs) {
        return new Entry(body, delayMs);
    }

    /** Tries the request once, else schedules its entry; the keys are ignored. */
    @Override
    public boolean tryCompleteElseWatch(Completable operation, List<BenchKey> keys) {
        Entry entry = (Entry) operation;
        if (entry.body.canComplete()) {
            return entry.forceComplete();
        }
        if (entry.isCompleted()) {
            return false; // forced before its submission: nothing to schedule
        }
        timer.add(entry);
        return false;
    }

    @Override
    public int checkAndComplete(BenchKey key) {
        return 0;
    }

    @Override
    public int watched() {
        return -1;
    }

    @Override
    public int numDelayed() {
        return timer.size();
    }

    @Override
    public void close() {
        reaper.close(); // stops the reaper, then closes the timer
    }

    /** A request: a flag settled by one CAS, and its own timer entry. */
    static final class Entry extends TimerTask implements Completable {
        private static final VarHandle DONE;

        static {
            try {
                DONE = MethodHandles.lookup().findVarHandle(Entry.class, "done", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final OpBody body;
        private volatile boolean done;

        Entry(OpBody body, long delayMs) {
            super(delayMs);
            this.body = body;
        }

        /** Forced by the completion thread: the flag, then the entry off the timer. */
        @Override
        public boolean forceComplete() {
            if (!DONE.compareAndSet(this, false, true)) {
                return false;
            }
            cancel();
            body.completed();
            return true;
        }

        @Override
        public boolean isCompleted() {
            return done;
        }

        /** Due: it expires unless it was forced first. */
        @Override
        public void run() {
            if (DONE.compareAndSet(this, false, true)) {
                body.completed();
                body.expired();
            }
        }
    }
}
