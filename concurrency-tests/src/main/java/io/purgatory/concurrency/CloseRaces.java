package io.purgatory.concurrency;

import io.purgatory.DelayedOperationPurgatory;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link DelayedOperationPurgatory#close()} (policy EXPIRE) races a submission and a completion.
 * Close settles every operation it accepted, exactly once; a submission it refuses leaves the
 * operation untouched; nothing is left on any list or on the timer. Results are as in
 * {@link RaceOperation}: (the racing call's result, outcome, callbacks, leftovers).
 */
public class CloseRaces {

    /** Result r1: 0 if {@code tryCompleteElseWatch} accepted the operation, -1 if it threw (closed). */
    @JCStressTest
    @Outcome(id = "-1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "close came first: submission refused, operation untouched")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE, desc = "submission accepted, then expired by close")
    @Outcome(id = "0, 0, .*", expect = Expect.FORBIDDEN, desc = "accepted but never settled: dropped by close")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice, refused yet touched, or something lingers")
    @State
    public static class CloseVsAdd extends RaceFixture {

        public CloseVsAdd() {
            super(1);
        }

        @Actor
        public void submit(IIII_Result r) {
            try {
                r.r1 = purgatory.tryCompleteElseWatch(op, List.of("k")) ? 1 : 0;
            } catch (IllegalStateException closed) {
                r.r1 = -1;
            }
        }

        @Actor
        public void close() {
            purgatory.close();
        }

        @Arbiter
        public void arbiter(IIII_Result r) {
            report(r);
        }
    }

    /** Result r1: checkAndComplete's count. */
    @JCStressTest
    @Outcome(id = "1, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "checkAndComplete won: onComplete only")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE,
            desc = "close won: expired, checkAndComplete found nothing")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
    @State
    public static class CloseVsCheckAndComplete extends RaceFixture {

        public CloseVsCheckAndComplete() {
            super(1, "k");
        }

        @Actor
        public void complete(IIII_Result r) {
            op.completable = true;
            r.r1 = purgatory.checkAndComplete("k");
        }

        @Actor
        public void close() {
            purgatory.close();
        }

        @Arbiter
        public void arbiter(IIII_Result r) {
            report(r);
        }
    }

    /** Result r1: forceComplete returned true. */
    @JCStressTest
    @Outcome(id = "1, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "forceComplete won: onComplete only")
    @Outcome(id = "0, 2, 110, 0", expect = Expect.ACCEPTABLE, desc = "close won: expired, forceComplete returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "settled twice or not at all, or something lingers")
    @State
    public static class CloseVsForceComplete extends RaceFixture {

        public CloseVsForceComplete() {
            super(2, "a", "b");
        }

        @Actor
        public void complete(IIII_Result r) {
            r.r1 = op.forceComplete() ? 1 : 0;
        }

        @Actor
        public void close() {
            purgatory.close();
        }

        @Arbiter
        public void arbiter(IIII_Result r) {
            report(r);
        }
    }
}
