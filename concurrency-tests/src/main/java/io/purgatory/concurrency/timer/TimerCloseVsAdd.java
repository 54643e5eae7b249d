package io.purgatory.concurrency.timer;

import io.purgatory.concurrency.Invariants;
import io.purgatory.timer.ManualTimer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link Timer#close()} races {@link Timer#add}: the add is refused, or accepted and then
 * cancelled by the close (TimerEngine E6); either way nothing stays scheduled and nothing runs.
 * Results: (add: 1 accepted, -1 refused; task still scheduled; timer size; runs).
 */
@JCStressTest
@Outcome(id = "-1, 0, 0, 0", expect = Expect.ACCEPTABLE, desc = "close came first: add refused")
@Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE, desc = "add accepted, then the close cancelled it")
@Outcome(id = ".*, 1, .*", expect = Expect.FORBIDDEN, desc = "a task still scheduled on a closed timer")
@Outcome(expect = Expect.FORBIDDEN, desc = "the size is off, or a task ran")
@State
public class TimerCloseVsAdd {

    private final ManualTimer timer = new ManualTimer();
    private final CountingTask task = new CountingTask(5);

    @Actor
    public void add(IIII_Result r) {
        try {
            timer.add(task);
            r.r1 = 1;
        } catch (IllegalStateException closed) {
            r.r1 = -1;
        }
    }

    @Actor
    public void close() {
        timer.close();
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        r.r2 = task.isScheduled() ? 1 : 0;
        r.r3 = timer.size();
        r.r4 = task.runs.get();
        Invariants.check(timer);
    }
}
