package io.purgatory;

import io.purgatory.timer.ManualTimer;
import java.util.List;
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
 * deadline. Exactly one settles it (D1), and {@code onExpiration} runs only if it expired.
 * Result: (the completing call's result, outcome, callbacks, leftovers) as in {@link RaceOperation}.
 */
public class CompletionVsExpiry {

    @JCStressTest
    @Outcome(id = "1, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "checkAndComplete won: onComplete only")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE, desc = "expiry won: onComplete + onExpiration; checkAndComplete found nothing to do")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
    @State
    public static class CheckAndComplete {
        private final ManualTimer timer = new ManualTimer();
        private final DelayedOperationPurgatory<RaceOperation> purgatory = RaceOperation.purgatory(timer, 1);
        private final RaceOperation op = new RaceOperation();

        public CheckAndComplete() {
            purgatory.tryCompleteElseWatch(op, List.of("k"));
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
            r.r2 = op.outcomeCode(); // as the race left it
            r.r4 = RaceOperation.leftovers(purgatory, timer);
            timer.advanceClock(100); // a stray timer entry would run now...
            r.r3 = op.callbacks(); // ...and show here
        }
    }

    @JCStressTest
    @Outcome(id = "1, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "forceComplete won: onComplete only")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE, desc = "expiry won: onComplete + onExpiration, forceComplete returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
    @State
    public static class ForceComplete {
        private final ManualTimer timer = new ManualTimer();
        private final DelayedOperationPurgatory<RaceOperation> purgatory = RaceOperation.purgatory(timer, 1);
        private final RaceOperation op = new RaceOperation();

        public ForceComplete() {
            purgatory.tryCompleteElseWatch(op, List.of("a", "b"));
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
            r.r2 = op.outcomeCode(); // as the race left it
            r.r4 = RaceOperation.leftovers(purgatory, timer);
            timer.advanceClock(100); // a stray timer entry would run now...
            r.r3 = op.callbacks(); // ...and show here
        }
    }
}
