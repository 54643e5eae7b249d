package io.purgatory.concurrency;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.WaitObserver;
import io.purgatory.WaitOutcome;
import io.purgatory.WaitStart;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * A watched wait's ends race in pairs: a completion, its timeout, a cancel and the purgatory's
 * close (policy EXPIRE). Its {@link WaitObserver} is told of the start once and of the end exactly once,
 * with the handle it returned and the outcome that won (Engine N6). Result: (starts * 10 + ends,
 * plus 100 if an end came with another handle; the ended outcome's ordinal, -1 if none; then the
 * operation's outcome, leftovers and callbacks as in {@link RaceOperation}).
 */
public class ObservedWaitRaces {

    @JCStressTest
    @Outcome(id = "11, 0, 1, 0, 100", expect = Expect.ACCEPTABLE, desc = "the completion won: COMPLETED")
    @Outcome(id = "11, 2, 2, 0, 110", expect = Expect.ACCEPTABLE, desc = "the timeout won: EXPIRED")
    @Outcome(expect = Expect.FORBIDDEN, desc = "ended twice, never, with another handle or outcome, or lingers")
    @State
    public static class CompleteVsExpire extends Fixture {

        @Actor
        public void complete() {
            completeIt();
        }

        @Actor
        public void expire() {
            timer.advanceClock(RaceOperation.DELAY_MS);
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    @JCStressTest
    @Outcome(id = "11, 3, 3, 0, 1", expect = Expect.ACCEPTABLE, desc = "the cancel won: CANCELLED")
    @Outcome(id = "11, 4, 2, 0, 110", expect = Expect.ACCEPTABLE, desc = "the close won: CLOSED, expired by it")
    @Outcome(expect = Expect.FORBIDDEN, desc = "ended twice, never, with another handle or outcome, or lingers")
    @State
    public static class CancelVsClose extends Fixture {

        @Actor
        public void cancel() {
            op.cancel();
        }

        @Actor
        public void close() {
            purgatory.close();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    @JCStressTest
    @Outcome(id = "11, 2, 2, 0, 110", expect = Expect.ACCEPTABLE, desc = "the timeout won: EXPIRED")
    @Outcome(id = "11, 4, 2, 0, 110", expect = Expect.ACCEPTABLE, desc = "the close won: CLOSED, expired by it")
    @Outcome(expect = Expect.FORBIDDEN, desc = "ended twice, never, with another handle or outcome, or lingers")
    @State
    public static class ExpireVsClose extends Fixture {

        @Actor
        public void expire() {
            timer.advanceClock(RaceOperation.DELAY_MS);
        }

        @Actor
        public void close() {
            purgatory.close();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    @JCStressTest
    @Outcome(id = "11, 0, 1, 0, 100", expect = Expect.ACCEPTABLE, desc = "the completion won: COMPLETED")
    @Outcome(id = "11, 4, 2, 0, 110", expect = Expect.ACCEPTABLE, desc = "the close won: CLOSED, expired by it")
    @Outcome(expect = Expect.FORBIDDEN, desc = "ended twice, never, with another handle or outcome, or lingers")
    @State
    public static class CompleteVsClose extends Fixture {

        @Actor
        public void complete() {
            completeIt();
        }

        @Actor
        public void close() {
            purgatory.close();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }

    /** An observed purgatory on a manual timer, one operation watched on "k", and the report. */
    abstract static class Fixture {
        final ManualTimer timer = new ManualTimer();
        final Counting observer = new Counting();
        final DelayedOperationPurgatory<RaceOperation> purgatory = DelayedOperationPurgatory
                .<RaceOperation>builder("observed-race").timer(timer).observer(observer).build();
        final RaceOperation op = new RaceOperation();

        Fixture() {
            purgatory.tryCompleteElseWatch(op, List.of("k"));
        }

        final void completeIt() {
            op.completable = true;
            purgatory.checkAndComplete("k");
        }

        /** r1 starts * 10 + ends (+100 for another handle), r2 the ended outcome; outcome, leftovers, callbacks. */
        final void report(IIIII_Result r) {
            r.r1 = observer.starts.get() * 10 + observer.ends.get() + (observer.otherHandles.get() > 0 ? 100 : 0);
            WaitOutcome ended = observer.outcome;
            r.r2 = ended == null ? -1 : ended.ordinal();
            r.r3 = op.outcomeCode();
            r.r4 = RaceOperation.leftovers(purgatory, timer);
            timer.advanceClock(100);
            r.r5 = op.callbacks();
        }
    }

    /** Counts starts and ends; its handle is one object, so an end with another shows. */
    static final class Counting implements WaitObserver {
        final Object handle = new Object();
        final AtomicInteger starts = new AtomicInteger();
        final AtomicInteger ends = new AtomicInteger();
        final AtomicInteger otherHandles = new AtomicInteger();
        volatile WaitOutcome outcome;

        @Override
        public Object started(WaitStart start) {
            starts.incrementAndGet();
            return handle;
        }

        @Override
        public void ended(Object endedHandle, WaitOutcome endedOutcome, Throwable failure) {
            if (endedHandle != handle) {
                otherHandles.incrementAndGet();
            }
            outcome = endedOutcome;
            ends.incrementAndGet();
        }
    }
}
