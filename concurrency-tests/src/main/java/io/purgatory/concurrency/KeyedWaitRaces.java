package io.purgatory.concurrency;

import io.purgatory.ClosePolicy;
import java.time.Duration;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * The ways a keyed wait ends, raced in pairs (two actors: the suite runs on two cores): an event
 * ({@code complete(key, 7)}), the timeout (another thread advances the timer to it), a cancel or
 * completion of the future from outside, and {@code close()} (policy EXPIRE, and CANCEL once).
 * Whatever wins, the future is answered exactly once, with the answer of the way the purgatory
 * counted (completed: the value; expired: a TimeoutException; cancelled: a CancellationException,
 * or the value given from outside), {@code complete} returns 1 iff its value was the answer, and
 * nothing is left on the key or the timer. Results as in {@link KeyedWaitFixture}: the racing
 * calls', then (answer, answers, counters, leftovers).
 */
public class KeyedWaitRaces {

    /** Result r1: complete's count. */
    @JCStressTest
    @Outcome(id = "1, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event won: the future has its value")
    @Outcome(id = "0, -2, 1, 10, 0", expect = Expect.ACCEPTABLE,
            desc = "the timeout won: TimeoutException, complete answered nothing")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CompleteVsTimeout extends KeyedWaitFixture {

        public CompleteVsTimeout() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void complete(IIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void expire() {
            timer.advanceClock(TIMEOUT_MS);
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    /** Results r1: complete's count; r2: the future's cancel(false). */
    @JCStressTest
    @Outcome(id = "1, 0, 7, 1, 100, 0", expect = Expect.ACCEPTABLE,
            desc = "the event won: the future has its value, cancel returned false")
    @Outcome(id = "0, 1, -3, 1, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "the cancel won: cancelled, counted so, complete answered nothing")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CompleteVsCancel extends KeyedWaitFixture {

        public CompleteVsCancel() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void complete(IIIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void cancel(IIIIII_Result r) {
            r.r2 = future.cancel(false) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(IIIIII_Result r) {
            report(r);
        }
    }

    /** Results r1: complete's count; r2: the future's complete(9) from outside. */
    @JCStressTest
    @Outcome(id = "1, 0, 7, 1, 100, 0", expect = Expect.ACCEPTABLE,
            desc = "the event won: the future has its value, the outside completion returned false")
    @Outcome(id = "0, 1, 9, 1, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "the outside completion won: its value, counted as cancelled, complete answered nothing")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CompleteVsFutureComplete extends KeyedWaitFixture {

        public CompleteVsFutureComplete() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void complete(IIIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void completeFuture(IIIIII_Result r) {
            r.r2 = future.complete(9) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(IIIIII_Result r) {
            report(r);
        }
    }

    /** Two answers from outside. Results r1: the future's cancel(false); r2: its complete(9). */
    @JCStressTest
    @Outcome(id = "1, 0, -3, 1, 1, 0", expect = Expect.ACCEPTABLE, desc = "the cancel won")
    @Outcome(id = "0, 1, 9, 1, 1, 0", expect = Expect.ACCEPTABLE, desc = "the outside completion won")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither won, answered twice, counted other than cancelled, "
            + "or something lingers")
    @State
    public static class CancelVsFutureComplete extends KeyedWaitFixture {

        public CancelVsFutureComplete() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void cancel(IIIIII_Result r) {
            r.r1 = future.cancel(false) ? 1 : 0;
        }

        @Actor
        public void completeFuture(IIIIII_Result r) {
            r.r2 = future.complete(9) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(IIIIII_Result r) {
            report(r);
        }
    }

    /** Result r1: complete's count. */
    @JCStressTest
    @Outcome(id = "1, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event won: the future has its value")
    @Outcome(id = "0, -2, 1, 10, 0", expect = Expect.ACCEPTABLE,
            desc = "close won: TimeoutException (policy EXPIRE), complete answered nothing")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CompleteVsClose extends KeyedWaitFixture {

        public CompleteVsClose() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void complete(IIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void close() {
            waits.close();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    /** Result r1: the future's cancel(false). */
    @JCStressTest
    @Outcome(id = "1, -3, 1, 1, 0", expect = Expect.ACCEPTABLE, desc = "the cancel won: cancelled, counted so")
    @Outcome(id = "0, -2, 1, 10, 0", expect = Expect.ACCEPTABLE,
            desc = "the timeout won: TimeoutException, cancel returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CancelVsTimeout extends KeyedWaitFixture {

        public CancelVsTimeout() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void cancel(IIIII_Result r) {
            r.r1 = future.cancel(false) ? 1 : 0;
        }

        @Actor
        public void expire() {
            timer.advanceClock(TIMEOUT_MS);
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    /** Result r1: the future's cancel(false). */
    @JCStressTest
    @Outcome(id = "1, -3, 1, 1, 0", expect = Expect.ACCEPTABLE, desc = "the cancel won: cancelled, counted so")
    @Outcome(id = "0, -2, 1, 10, 0", expect = Expect.ACCEPTABLE,
            desc = "close won: TimeoutException (policy EXPIRE), cancel returned false")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CancelVsClose extends KeyedWaitFixture {

        public CancelVsClose() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void cancel(IIIII_Result r) {
            r.r1 = future.cancel(false) ? 1 : 0;
        }

        @Actor
        public void close() {
            waits.close();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    /** Close with policy CANCEL. Result r1: complete's count. */
    @JCStressTest
    @Outcome(id = "1, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event won: the future has its value")
    @Outcome(id = "0, -3, 1, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "close won: cancelled (policy CANCEL), complete answered nothing")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice, inconsistently or not at all, or something lingers")
    @State
    public static class CompleteVsCancellingClose extends KeyedWaitFixture {

        public CompleteVsCancellingClose() {
            super(builder(1).closePolicy(ClosePolicy.CANCEL));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void complete(IIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void close() {
            waits.close();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }
}
