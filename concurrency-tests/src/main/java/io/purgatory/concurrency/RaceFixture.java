package io.purgatory.concurrency;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import org.openjdk.jcstress.infra.results.IIIII_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * What the purgatory races share: a {@link ManualTimer}, a purgatory on it, one
 * {@link RaceOperation}, submitted up front on the given keys (none: an actor submits it), and
 * the arbiter's report. The report reads the outcome and the leftovers as the race left them,
 * then advances the timer past every deadline and reads the callbacks: a timer entry left behind
 * would show as an extra run.
 */
abstract class RaceFixture {

    final ManualTimer timer = new ManualTimer();
    final DelayedOperationPurgatory<RaceOperation> purgatory;
    final RaceOperation op = new RaceOperation();

    RaceFixture(int shards, String... keys) {
        purgatory = RaceOperation.purgatory(timer, shards);
        if (keys.length > 0) {
            purgatory.tryCompleteElseWatch(op, List.of(keys));
        }
    }

    /** r2 = outcome, r3 = callbacks, r4 = leftovers (r1 is the racing call's). */
    final void report(IIII_Result r) {
        r.r2 = op.outcomeCode();
        r.r4 = RaceOperation.leftovers(purgatory, timer);
        timer.advanceClock(100);
        r.r3 = op.callbacks();
    }

    /** r3 = outcome, r4 = leftovers, r5 = callbacks (r1 and r2 are the two racing calls'). */
    final void report(IIIII_Result r) {
        r.r3 = op.outcomeCode();
        r.r4 = RaceOperation.leftovers(purgatory, timer);
        timer.advanceClock(100);
        r.r5 = op.callbacks();
    }
}
