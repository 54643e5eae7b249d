package io.purgatory.concurrency.timer;

import io.purgatory.concurrency.Invariants;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TimerTask;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link TimerTask#cancel()} races the expiry of the same task: one thread cancels while another
 * advances a {@link ManualTimer} to the task's deadline. Exactly one of them ends the schedule
 * (TimerTask T1): cancel wins and the task never runs, or the expiry wins and cancel returns
 * false. Result: (cancel returned true, runs after the arbiter drained the timer, timer size).
 * The arbiter also checks the wheel's invariants (an exception there is a test error).
 */
public class TimerCancelVsExpiry {

    /** The task sits in a bucket of the finest wheel. */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE, desc = "cancel won: the task never ran")
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE, desc = "expiry won: the task ran once, cancel returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither ended the schedule, or the size is off")
    @State
    public static class FinestWheel {
        private final ManualTimer timer = new ManualTimer();
        private final CountingTask task = new CountingTask(5);

        public FinestWheel() {
            timer.add(task);
        }

        @Actor
        public void cancel(III_Result r) {
            r.r1 = task.cancel() ? 1 : 0;
        }

        @Actor
        public void expire() {
            timer.advanceClock(5);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            timer.advanceClock(100);
            r.r2 = task.runs.get();
            r.r3 = timer.size();
            Invariants.check(timer);
        }
    }

    /**
     * The task sits in an overflow wheel (delay 25 with 20 one-ms buckets): the advance flushes
     * that coarse bucket, re-inserts the task into the finest wheel and runs it, all while the
     * cancel races it.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE, desc = "cancel won: the task never ran")
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE, desc = "expiry won: the task ran once, cancel returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither ended the schedule, or the size is off")
    @State
    public static class OverflowWheel {
        private final ManualTimer timer = new ManualTimer();
        private final CountingTask task = new CountingTask(25);

        public OverflowWheel() {
            timer.add(task);
        }

        @Actor
        public void cancel(III_Result r) {
            r.r1 = task.cancel() ? 1 : 0;
        }

        @Actor
        public void expire() {
            timer.advanceClock(25);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            timer.advanceClock(100);
            r.r2 = task.runs.get();
            r.r3 = timer.size();
            Invariants.check(timer);
        }
    }
}
