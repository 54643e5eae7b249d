package io.purgatory.concurrency;

import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * No lost wake-up (K6): {@code tryCompleteElseWatch(op, keys)} races a thread that
 * makes {@code op} completable and then calls {@code checkAndComplete(key)}. Whatever the
 * interleaving, one of the two completes it: the submission's second try sees the state change,
 * or the check sees the operation on the key. A pending operation at the end is the lost
 * wake-up. Result: (tryCompleteElseWatch returned true, checkAndComplete's count, outcome,
 * leftovers, callbacks) as in {@link RaceOperation}.
 */
public class WatchVsCheckAndComplete {

    @JCStressTest
    @Outcome(id = "1, 0, 1, 0, 100", expect = Expect.ACCEPTABLE,
            desc = "the submission's first or second try completed it")
    @Outcome(id = "0, 1, 1, 0, 100", expect = Expect.ACCEPTABLE,
            desc = "checkAndComplete found it watched and completed it")
    @Outcome(id = "0, 0, 0, .*", expect = Expect.FORBIDDEN, desc = "lost wake-up: the operation stays pending")
    @Outcome(expect = Expect.FORBIDDEN, desc = "completed twice, or something lingers")
    @State
    public static class OneKey extends RaceFixture {

        public OneKey() {
            super(1);
        }

        @Actor
        public void submit(IIIII_Result r) {
            r.r1 = purgatory.tryCompleteElseWatch(op, List.of("k")) ? 1 : 0;
        }

        @Actor
        public void check(IIIII_Result r) {
            op.completable = true;
            r.r2 = purgatory.checkAndComplete("k");
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    /**
     * The operation watches two keys that live in different shards; the check is on the second
     * one, which the submission links last.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 1, 0, 100", expect = Expect.ACCEPTABLE,
            desc = "the submission's first or second try completed it")
    @Outcome(id = "0, 1, 1, 0, 100", expect = Expect.ACCEPTABLE,
            desc = "checkAndComplete on the second key completed it")
    @Outcome(id = "0, 0, 0, .*", expect = Expect.FORBIDDEN, desc = "lost wake-up: the operation stays pending")
    @Outcome(expect = Expect.FORBIDDEN, desc = "completed twice, or something lingers")
    @State
    public static class TwoKeysTwoShards extends RaceFixture {

        public TwoKeysTwoShards() {
            super(2);
        }

        @Actor
        public void submit(IIIII_Result r) {
            r.r1 = purgatory.tryCompleteElseWatch(op, List.of("a", "b")) ? 1 : 0;
        }

        @Actor
        public void check(IIIII_Result r) {
            op.completable = true;
            r.r2 = purgatory.checkAndComplete("b");
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }
}
