package io.purgatory.concurrency;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Completion races expiry: one thread makes the operation completable and calls
 * {@code checkAndComplete} (or {@code forceComplete}) while another advances the timer to its
 * deadline. Exactly one settles it (O1), and {@code onExpiration} runs only if it expired.
 * Result: (the completing call's result, outcome, callbacks, leftovers) as in {@link RaceOperation}.
 */
public class CompletionVsExpiry {

    @JCStressTest
    @Outcome(id = "1, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "checkAndComplete won: onComplete only")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE,
            desc = "expiry won: onComplete + onExpiration; checkAndComplete found nothing to do")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
    @State
    public static class CheckAndComplete extends RaceFixture {

        public CheckAndComplete() {
            super(1, "k");
        }

        @Actor
        public void complete(IIII_Result r) {
            op.completable = true;
            r.r1 = purgatory.checkAndComplete("k");
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

    @JCStressTest
    @Outcome(id = "1, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "forceComplete won: onComplete only")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE,
            desc = "expiry won: onComplete + onExpiration, forceComplete returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
    @State
    public static class ForceComplete extends RaceFixture {

        public ForceComplete() {
            super(1, "a", "b");
        }

        @Actor
        public void complete(IIII_Result r) {
            r.r1 = op.forceComplete() ? 1 : 0;
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
}
