package io.purgatory.concurrency;

import java.time.Duration;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * Events racing each other and the wait they answer. Two events (or an event and an error) that
 * the wait's predicate both accepts: exactly one is the answer, the one whose call counted it
 * (V1). A wait submitted while its event is handed over, with early events retained: it always
 * ends with the  event's value (X2), answered by the visit, the submission's first try or its try
 * after the watch. Results as in {@link KeyedWaitFixture}: the racing calls', then (answer,
 * answers, counters, leftovers).
 */
public class KeyedWaitEvents {

    /** Results r1, r2: the counts of complete("k", 7) and complete("k", 8). */
    @JCStressTest
    @Outcome(id = "1, 0, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "7 won")
    @Outcome(id = "0, 1, 8, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "8 won")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither counted, the answer is not the counted one, "
            + "answered twice, or something lingers")
    @State
    public static class TwoEvents extends KeyedWaitFixture {

        public TwoEvents() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS), v -> v > 0));
        }

        @Actor
        public void seven(IIIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void eight(IIIIII_Result r) {
            r.r2 = waits.complete("k", 8);
        }

        @Arbiter
        public void arbiter(IIIIII_Result r) {
            report(r);
        }
    }

    /**
     * A wait on "a" and "b", which live in different shards; the events arrive one on each.
     * Results r1, r2: the counts of complete("a", 7) and complete("b", 8).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event on a won")
    @Outcome(id = "0, 1, 8, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event on b won")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither counted, the answer is not the counted one, "
            + "answered twice, or something lingers on either key")
    @State
    public static class TwoEventsTwoKeys extends KeyedWaitFixture {

        public TwoEventsTwoKeys() {
            super(builder(2));
            track(waits.awaitAny(List.of("a", "b"), Duration.ofMillis(TIMEOUT_MS), v -> v > 0));
        }

        @Actor
        public void onA(IIIIII_Result r) {
            r.r1 = waits.complete("a", 7);
        }

        @Actor
        public void onB(IIIIII_Result r) {
            r.r2 = waits.complete("b", 8);
        }

        @Arbiter
        public void arbiter(IIIIII_Result r) {
            report(r);
        }
    }

    /** Results r1: complete("k", 7)'s count; r2: completeExceptionally's count (-9: its error). */
    @JCStressTest
    @Outcome(id = "1, 0, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event won")
    @Outcome(id = "0, 1, -9, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the error won")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither counted, the answer is not the counted one, "
            + "answered twice, or something lingers")
    @State
    public static class EventVsError extends KeyedWaitFixture {

        public EventVsError() {
            super(builder(1));
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void event(IIIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Actor
        public void error(IIIIII_Result r) {
            r.r2 = waits.completeExceptionally("k", new IllegalStateException("gone"));
        }

        @Arbiter
        public void arbiter(IIIIII_Result r) {
            report(r);
        }
    }

    /**
     * await("k") races complete("k", 7) with early events retained for a minute (longer than the
     * test: the window never ends here). No one advances the clock during the race, so a timeout
     * means the event was lost. Result r1: complete's count.
     */
    @JCStressTest
    @Outcome(id = "1, 7, 1, 100, 0", expect = Expect.ACCEPTABLE, desc = "the event's visit found the wait watched")
    @Outcome(id = "0, 7, 1, 100, 0", expect = Expect.ACCEPTABLE,
            desc = "the submission's try after the watch took the retained event")
    @Outcome(id = "0, 7, 1, 1000, 0", expect = Expect.ACCEPTABLE,
            desc = "the submission's first try took the retained event: completed at once")
    @Outcome(id = "0, -2, .*", expect = Expect.FORBIDDEN,
            desc = "lost event: the wait stayed pending until the arbiter's advance timed it out")
    @Outcome(expect = Expect.FORBIDDEN, desc = "answered twice or otherwise, counted wrong, or something lingers")
    @State
    public static class AwaitVsRetainedEvent extends KeyedWaitFixture {

        public AwaitVsRetainedEvent() {
            super(builder(1).retainEvents(Duration.ofMinutes(1), 16));
        }

        @Actor
        public void await() {
            track(waits.await("k", Duration.ofMillis(TIMEOUT_MS)));
        }

        @Actor
        public void complete(IIIII_Result r) {
            r.r1 = waits.complete("k", 7);
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            report(r);
        }
    }
}
