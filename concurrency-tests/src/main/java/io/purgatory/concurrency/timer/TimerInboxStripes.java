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
 * Two threads push on the striped inbox (Inbox I1), each on its own stripe, while one of them
 * drains it: one adds a new task and then advances a {@link ManualTimer} by 0 ms, taking whatever
 * the stripes hold; the other cancels a task already in the wheel (its cancel must reach the
 * driver through the inbox to unlink it), before, during or after that drain. No push may be
 * lost or applied twice, whichever stripe it landed on and whenever the drain ran. Result: (cancel
 * returned true, timer size after the race, runs once both deadlines
 * passed: the added task's plus 10 x the cancelled one's). The arbiter also checks E1/E2 across
 * the stripes (an exception there is a test error).
 */
@JCStressTest
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "the add and the cancel both reached the wheel")
@Outcome(expect = Expect.FORBIDDEN, desc = "a push was lost, applied twice, or a cancelled task ran")
@State
public class TimerInboxStripes {

    private final ManualTimer timer = new ManualTimer();
    private final CountingTask placed = new CountingTask(50);
    private final CountingTask added = new CountingTask(50);

    public TimerInboxStripes() {
        timer.add(placed);
        timer.advanceClock(0); // drains the inbox: placed is now linked in the wheel
    }

    @Actor
    public void addThenDrain() {
        timer.add(added);
        timer.advanceClock(0);
    }

    @Actor
    public void cancel(III_Result r) {
        r.r1 = placed.cancel() ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        Invariants.check(timer);
        r.r2 = timer.size();
        timer.advanceClock(50);
        r.r3 = added.runs.get() + 10 * placed.runs.get();
    }
}
