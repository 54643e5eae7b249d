package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A wait's end is CLOSED exactly when its purgatory's close settled it (OperationState O9): a
 * completion, an expiry or a cancel that wins while the close runs (from one of the close's own
 * callbacks, from a try the close found claimed, from another purgatory's close on the same
 * runtime) keeps its own outcome; each wait is ended exactly once.
 */
class CloseOutcomeTest {

    private final ManualTimer timer = new ManualTimer();
    private final WaitObserverTest.Recording observer = new WaitObserverTest.Recording();

    private DelayedOperationPurgatory<HookOp> purgatory(String name, ClosePolicy policy) {
        return DelayedOperationPurgatory.<HookOp>builder(name).timer(timer).observer(observer).closePolicy(policy)
                .build();
    }

    @Test
    void close_aCallbackOfItsSweepCompletesAnotherWait_thatWaitEndsCompletedNotClosed() {
        DelayedOperationPurgatory<HookOp> p = purgatory("sweep", ClosePolicy.EXPIRE);
        HookOp a = new HookOp(100);
        HookOp b = new HookOp(100);
        a.completeHook = b::forceComplete; // whichever the sweep expires first completes the other
        b.completeHook = a::forceComplete;
        p.tryCompleteElseWatch(a, List.of("a"));
        p.tryCompleteElseWatch(b, List.of("b"));

        p.close();

        assertThat(observer.ends).containsExactlyInAnyOrder("CLOSED", "COMPLETED");
        assertThat(a.completes.get() + b.completes.get()).isEqualTo(2);
        assertThat(a.expirations.get() + b.expirations.get()).as("only the one the close expired").isOne();
        assertThat(p.stats().completed()).isOne();
        assertThat(p.stats().expired()).isOne();
    }

    @Test
    void close_aCallbackOfItsSweepAdvancesTheTimerPastAnotherWaitsTimeout_thatWaitEndsExpired() {
        DelayedOperationPurgatory<HookOp> p = purgatory("sweep", ClosePolicy.CANCEL);
        HookOp a = new HookOp(1_000);
        HookOp b = new HookOp(1_000);
        Runnable advance = () -> timer.advanceClock(1_000);
        a.cancelHook = advance;
        b.cancelHook = advance;
        p.tryCompleteElseWatch(a, List.of("a"));
        p.tryCompleteElseWatch(b, List.of("b"));

        p.close();

        assertThat(observer.ends).containsExactlyInAnyOrder("CLOSED", "EXPIRED");
        assertThat(a.callbackCounts() + " " + b.callbackCounts()).isIn("0,0,1 1,1,0", "1,1,0 0,0,1");
        assertThat(timer.size()).isZero();
    }

    @Test
    void close_calledFromTheTryOfTheOperationItSettles_thatWaitEndsClosedOnce() {
        DelayedOperationPurgatory<HookOp> p = purgatory("inside", ClosePolicy.EXPIRE);
        HookOp op = new HookOp(100);
        p.tryCompleteElseWatch(op, List.of("k"));
        op.completable = true;
        op.tryHook = p::close; // the close finds the operation claimed by this very try

        int completed = p.checkAndComplete("k");

        assertThat(observer.ends).containsExactly("CLOSED");
        assertThat(op.callbackCounts()).as("expired by the close policy, once").isEqualTo("1,1,0");
        assertThat(completed).as("its forceComplete lost to the close").isZero();
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
    }

    @Test
    void close_fromTheStartOfTheWaitItSettles_thatWaitEndsClosedOnceAndTheSubmissionReturnsFalse() {
        AtomicReference<DelayedOperationPurgatory<HookOp>> p = new AtomicReference<>();
        WaitObserver closing = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                Object handle = observer.started(start);
                p.get().close();
                return handle;
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                observer.ended(handle, outcome, failure);
            }
        };
        p.set(DelayedOperationPurgatory.<HookOp>builder("started").timer(timer).observer(closing)
                .closePolicy(ClosePolicy.CANCEL).build());
        HookOp op = new HookOp(100);

        boolean completed = p.get().tryCompleteElseWatch(op, List.of("k"));

        assertThat(completed).isFalse();
        assertThat(observer.ends).containsExactly("CLOSED");
        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
        assertThat(p.get().numDelayed()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void runtimeClose_aSweepCallbackOfOnePurgatoryCancelsAWaitOfTheNext_thatWaitEndsCancelledTheOtherClosed() {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("shared").timer(timer).build();
        DelayedOperationPurgatory<HookOp> first = DelayedOperationPurgatory.<HookOp>builder("first").runtime(runtime)
                .observer(observer).closePolicy(ClosePolicy.EXPIRE).build();
        DelayedOperationPurgatory<HookOp> second = DelayedOperationPurgatory.<HookOp>builder("second")
                .runtime(runtime).observer(observer).closePolicy(ClosePolicy.EXPIRE).build();
        HookOp inFirst = new HookOp(100);
        HookOp cancelled = new HookOp(100);
        HookOp closed = new HookOp(100);
        HookOp submittedLate = new HookOp(100);
        inFirst.completeHook = () -> {
            cancelled.cancel();
            if (!second.isClosed()) {
                second.tryCompleteElseWatch(submittedLate, List.of("late"));
            }
        };
        first.tryCompleteElseWatch(inFirst, List.of("k"));
        second.tryCompleteElseWatch(cancelled, List.of("k"));
        second.tryCompleteElseWatch(closed, List.of("k"));

        runtime.close();

        assertThat(cancelled.callbackCounts()).isEqualTo("0,0,1");
        assertThat(closed.callbackCounts()).isEqualTo("1,1,0");
        assertThat(inFirst.callbackCounts()).isEqualTo("1,1,0");
        int submittedLateEnds = submittedLate.callbackCounts().equals("0,0,0") ? 0 : 1;
        assertThat(observer.ends).as("each wait ended once, CLOSED only where a close settled it")
                .hasSize(3 + submittedLateEnds)
                .containsOnlyOnce("CANCELLED");
        assertThat(observer.ends.stream().filter("CLOSED"::equals).count()).isEqualTo(2 + submittedLateEnds);
        assertThat(second.numDelayed()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void keyedWaitsClose_aDependentStageOfOneWaitCompletesFailsAndCancelsOthers_onlyTheCancelWinsTheClose() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("keyed").timer(timer).observer(observer)
                .lateEvents(Duration.ofSeconds(10), 10).build();
        List<String> keys = List.of("a", "b", "c", "d");
        List<CompletableFuture<String>> futures = new ArrayList<>();
        for (String key : keys) {
            futures.add(waits.await(key, Duration.ofSeconds(5)));
        }
        AtomicBoolean first = new AtomicBoolean(true);
        int[] eventAnswered = {-1};
        int[] errorAnswered = {-1};
        for (CompletableFuture<String> f : futures) {
            var unused = f.whenComplete((v, e) -> {
                if (!first.compareAndSet(true, false)) {
                    return;
                }
                int step = 0;
                for (int i = 0; i < keys.size(); i++) {
                    if (futures.get(i).isDone()) {
                        continue;
                    }
                    switch (step++) {
                        case 0 -> eventAnswered[0] = waits.complete(keys.get(i), "during close");
                        case 1 -> errorAnswered[0] = waits.completeExceptionally(keys.get(i),
                                new IllegalStateException("failed"));
                        case 2 -> futures.get(i).cancel(true);
                        default -> { }
                    }
                }
            });
        }

        waits.close();

        assertThat(futures).allSatisfy(f -> assertThat(f).isDone());
        assertThat(eventAnswered[0]).as("complete is refused once the close began (its javadoc)").isZero();
        assertThat(errorAnswered[0]).as("completeExceptionally too (its javadoc)").isZero();
        assertThat(observer.ends).as("each wait ended once, CLOSED only where the close settled it")
                .containsExactlyInAnyOrder("CLOSED", "CLOSED", "CLOSED", "CANCELLED");
    }

    @Test
    void submission_timerClosedUnderAnOpenPurgatory_itsWaitDoesNotEndClosed() {
        DelayedOperationPurgatory<HookOp> p = purgatory("open", ClosePolicy.EXPIRE);
        timer.close();
        HookOp op = new HookOp(100);

        boolean completed = p.tryCompleteElseWatch(op, List.of("k"));

        assertThat(completed).isFalse();
        assertThat(op.callbackCounts()).as("settled at once by the close policy").isEqualTo("1,1,0");
        assertThat(p.isClosed()).isFalse();
        assertThat(observer.ends).as("(O9) CLOSED exactly when its purgatory's close settled it")
                .containsExactly("EXPIRED");
        p.close();
    }

    /** The end each operation's wait got, by identity of the operation (a handle per operation). */
    private static final class ByOperation implements WaitObserver {
        final Map<Object, List<WaitOutcome>> ends = new ConcurrentHashMap<>();
        /** The operation being submitted (submissions are made on the test's thread only). */
        volatile Object submitting;

        @Override
        public Object started(WaitStart start) {
            Object op = submitting;
            ends.put(op, new CopyOnWriteArrayList<>());
            return op;
        }

        @Override
        public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
            ends.get(handle).add(outcome);
        }
    }

    @Test
    void close_racingCancelsAndForceCompletesOnAnotherThread_eachWaitEndsAsTheCallThatWonSays() throws Exception {
        int callsWon = 0;
        int closesWon = 0;
        for (int round = 0; round < 200; round++) {
            ByOperation byOp = new ByOperation();
            ClosePolicy policy = round % 2 == 0 ? ClosePolicy.CANCEL : ClosePolicy.COMPLETE;
            DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("race-" + round)
                    .timer(timer).observer(byOp).closePolicy(policy).build();
            List<HookOp> ops = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                HookOp op = new HookOp(1_000);
                byOp.submitting = op;
                p.tryCompleteElseWatch(op, i % 3 == 0 ? List.of("k" + i) : List.of("k" + i, "shared"));
                ops.add(op);
            }
            boolean[] won = new boolean[ops.size()];
            raceWithClose(p, () -> {
                for (int i = 0; i < ops.size(); i++) {
                    won[i] = i % 2 == 0 ? ops.get(i).cancel() : ops.get(i).forceComplete();
                }
            });

            for (int i = 0; i < ops.size(); i++) {
                WaitOutcome byCall = i % 2 == 0 ? WaitOutcome.CANCELLED : WaitOutcome.COMPLETED;
                assertThat(byOp.ends.get(ops.get(i))).as("round %d, op %d, %s won: %s", round, i,
                        i % 2 == 0 ? "cancel" : "forceComplete", won[i])
                        .containsExactly(won[i] ? byCall : WaitOutcome.CLOSED);
                if (won[i]) {
                    callsWon++;
                } else {
                    closesWon++;
                }
            }
        }
        System.out.println("CloseOutcomeTest: the racing call won " + callsWon + " times, the close " + closesWon);
    }

    @Test
    void close_racingExpiriesAndChecksOnAnotherThread_eachWaitEndsClosedExactlyWhenTheCloseSettledIt()
            throws Exception {
        int closed = 0;
        int other = 0;
        for (int round = 0; round < 200; round++) {
            ByOperation byOp = new ByOperation();
            ManualTimer own = new ManualTimer();
            DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("race-" + round)
                    .timer(own).observer(byOp).closePolicy(ClosePolicy.CANCEL).build();
            List<HookOp> ops = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                HookOp op = new HookOp(1 + i / 2);
                byOp.submitting = op;
                p.tryCompleteElseWatch(op, List.of("k" + i));
                op.completable = i % 2 == 1; // completed by the actor's check, if it comes before the close
                ops.add(op);
            }
            raceWithClose(p, () -> {
                for (int i = 0; i < ops.size(); i += 2) {
                    own.advanceClock(1); // expires the next even operation (and earlier ones)
                    p.checkAndComplete("k" + (i + 1)); // completes the odd one
                }
            });

            for (int i = 0; i < ops.size(); i++) {
                HookOp op = ops.get(i);
                WaitOutcome expected = switch (op.outcome()) {
                    case EXPIRED -> WaitOutcome.EXPIRED;
                    case COMPLETED -> WaitOutcome.COMPLETED;
                    case CANCELLED -> WaitOutcome.CLOSED; // only the close cancels
                };
                assertThat(byOp.ends.get(op)).as("round %d, op %d, %s", round, i, op.outcome())
                        .containsExactly(expected);
                if (expected == WaitOutcome.CLOSED) {
                    closed++;
                } else {
                    other++;
                }
            }
            own.close();
        }
        System.out.println("CloseOutcomeTest: the close settled " + closed + " waits, expiries and checks " + other);
    }

    @Test
    void keyedWaitsClose_racingEventsAndCancelsOnAnotherThread_eachWaitEndsAsTheCallThatWonSays() throws Exception {
        for (int round = 0; round < 200; round++) {
            WaitObserverTest.Recording recording = new WaitObserverTest.Recording();
            KeyedWaits<String, String> waits = KeyedWaits.builder("race-" + round).timer(timer).observer(recording)
                    .lateEvents(Duration.ofSeconds(10), 100).build();
            List<CompletableFuture<String>> futures = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                futures.add(waits.await("k" + i, Duration.ofSeconds(5)));
            }
            boolean[] won = new boolean[futures.size()];
            raceWithClose(waits, () -> {
                for (int i = 0; i < futures.size(); i++) {
                    won[i] = i % 2 == 0 ? waits.complete("k" + i, "v") == 1 : futures.get(i).cancel(false);
                }
            });

            Map<Integer, String> endOf = new java.util.HashMap<>();
            for (int j = 0; j < recording.ends.size(); j++) {
                endOf.put(recording.endedHandles.get(j), recording.ends.get(j));
            }
            for (int i = 0; i < futures.size(); i++) {
                String byCall = i % 2 == 0 ? "COMPLETED" : "CANCELLED";
                assertThat(endOf.get(i)).as("round %d, wait %d, %s won: %s", round, i,
                        i % 2 == 0 ? "the event" : "the cancel", won[i]).isEqualTo(won[i] ? byCall : "CLOSED");
            }
            assertThat(recording.endedHandles).hasSize(futures.size());
        }
    }

    /** Runs {@code actions} on a thread of its own, started with {@code closeable}'s close on this one. */
    private static void raceWithClose(AutoCloseable closeable, Runnable actions) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        Thread actor = new Thread(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            actions.run();
        }, "actor");
        actor.start();
        go.countDown();
        closeable.close();
        actor.join(30_000);
        assertThat(actor.isAlive()).isFalse();
    }
}
