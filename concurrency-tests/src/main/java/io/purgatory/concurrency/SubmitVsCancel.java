package io.purgatory.concurrency;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryFullException;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * {@code tryCompleteElseWatch} races a {@code cancel()} of the same operation on a purgatory
 * with {@code maxPending(1)}. The operation is cancelled exactly once, whenever the cancel lands;
 * the submission is refused (already settled) or accepted and then undone; and in every case the
 * admission slot is free again afterwards (O4). Result: (submission: -1 refused,
 * 0 accepted; outcome; callbacks; leftovers; 1 if a fresh operation is then admitted).
 */
@JCStressTest
@Outcome(id = "-1, 3, 1, 0, 1", expect = Expect.ACCEPTABLE,
        desc = "cancel came first: the submission refused the settled operation")
@Outcome(id = "0, 3, 1, 0, 1", expect = Expect.ACCEPTABLE,
        desc = "cancelled during or after the submission: it left the key and the timer")
@Outcome(id = ".*, 0", expect = Expect.FORBIDDEN,
        desc = "the cancelled submission kept its admission slot: the purgatory stays full")
@Outcome(expect = Expect.FORBIDDEN, desc = "reported completed, cancelled twice or not at all, or something lingers")
@State
public class SubmitVsCancel {

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<RaceOperation> purgatory = DelayedOperationPurgatory
            .builder("race").timer(timer).reaperEnabled(false).shards(1).maxPending(1).build();
    private final RaceOperation op = new RaceOperation();

    @Actor
    public void submit(IIIII_Result r) {
        try {
            r.r1 = purgatory.tryCompleteElseWatch(op, List.of("k")) ? 1 : 0;
        } catch (IllegalStateException settled) {
            r.r1 = -1;
        }
    }

    @Actor
    public void cancel() {
        op.cancel();
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
        r.r2 = op.outcomeCode();
        r.r4 = RaceOperation.leftovers(purgatory, timer);
        timer.advanceClock(100);
        r.r3 = op.callbacks();
        try {
            purgatory.tryCompleteElseWatch(new RaceOperation(), List.of("k"));
            r.r5 = 1;
        } catch (PurgatoryFullException full) {
            r.r5 = 0;
        }
    }
}
