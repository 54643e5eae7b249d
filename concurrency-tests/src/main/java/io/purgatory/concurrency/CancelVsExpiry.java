package io.purgatory.concurrency;

import io.purgatory.DelayedOperation;
import io.purgatory.timer.ManualTimer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link DelayedOperation#cancel()} races the expiry of the same watched operation (another
 * thread advances the {@link ManualTimer} to its deadline). Settled exactly once (O1): onCancel
 * alone, or onComplete then onExpiration, never both; it leaves its key and the timer either way.
 * Result: (cancel returned true, outcome, callbacks, leftovers) as in {@link RaceOperation}.
 */
@JCStressTest
@Outcome(id = "1, 3, 1, 0", expect = Expect.ACCEPTABLE, desc = "cancel won: onCancel only")
@Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE,
        desc = "expiry won: onComplete + onExpiration, cancel returned false")
@Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
@State
public class CancelVsExpiry extends RaceFixture {

    public CancelVsExpiry() {
        super(1, "k");
    }

    @Actor
    public void cancel(IIII_Result r) {
        r.r1 = op.cancel() ? 1 : 0;
    }

    @Actor
    public void expire() {
        timer.advanceClock(RaceOperation.DELAY_MS);
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        report(r);
    }
}
