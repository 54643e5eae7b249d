package io.purgatory.concurrency.timer;

import io.purgatory.concurrency.Invariants;
import io.purgatory.timer.ManualTimer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A reschedule ({@link Timer#add} of a task that is still scheduled) races the driver flushing
 * the bucket that holds the task. The task must end each schedule exactly once: it is never
 * lost in the flush, and never linked twice (once by the flush's re-insert, once by the
 * reschedule). Results: (runs right after the race, runs after the arbiter drained the timer,
 * timer size); the arbiter also checks the wheel's invariants.
 */
public class TimerRescheduleVsFlush {

    /**
     * The advance expires the task's finest-wheel bucket. A reschedule that lands after the
     * expiry is a new schedule, so the task may run twice in all, but never more, and never zero.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE, desc = "rescheduled to the same deadline first, then ran once")
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "rescheduled past the advance (read the moved clock): ran once later")
    @Outcome(id = "1, 2, 0", expect = Expect.ACCEPTABLE, desc = "ran, then the add scheduled it anew; ran again later")
    @Outcome(id = "2, 2, 0", expect = Expect.ACCEPTABLE,
            desc = "ran, then the add scheduled it anew at a due deadline; the same advance ran it again")
    @Outcome(expect = Expect.FORBIDDEN, desc = "lost, run too often, or the size is off")
    @State
    public static class FinestBucketExpires {
        private final ManualTimer timer = new ManualTimer();
        private final CountingTask task = new CountingTask(5);

        public FinestBucketExpires() {
            timer.add(task);
        }

        @Actor
        public void reschedule() {
            timer.add(task);
        }

        @Actor
        public void flush() {
            timer.advanceClock(5);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = task.runs.get();
            timer.advanceClock(100);
            r.r2 = task.runs.get();
            r.r3 = timer.size();
            Invariants.check(timer);
        }
    }

    /**
     * The advance flushes the task's overflow-wheel bucket and re-inserts the task into the
     * finest wheel, where it is not yet due (delay 25, advance 20). The task never expired, so
     * there is one schedule in all: it must run exactly once.
     */
    @JCStressTest
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE, desc = "one schedule, run exactly once")
    @Outcome(id = "0, 0, .*", expect = Expect.FORBIDDEN, desc = "lost between the flush and the reschedule")
    @Outcome(id = "0, 2, .*", expect = Expect.FORBIDDEN,
            desc = "linked twice: re-inserted by the flush and placed by the reschedule")
    @Outcome(expect = Expect.FORBIDDEN, desc = "ran early, or the size is off")
    @State
    public static class OverflowBucketReinserts {
        private final ManualTimer timer = new ManualTimer();
        private final CountingTask task = new CountingTask(25);

        public OverflowBucketReinserts() {
            timer.add(task);
        }

        @Actor
        public void reschedule() {
            timer.add(task);
        }

        @Actor
        public void flush() {
            timer.advanceClock(20);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = task.runs.get();
            timer.advanceClock(100);
            r.r2 = task.runs.get();
            r.r3 = timer.size();
            Invariants.check(timer);
        }
    }
}
