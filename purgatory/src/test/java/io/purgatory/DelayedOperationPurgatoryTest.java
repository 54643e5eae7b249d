package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka's {@code DelayedOperationTest}, made deterministic with a {@link ManualTimer}, and adapted
 * where our semantics are stricter (a settled operation leaves its watch lists at once); and a
 * ManualTimer advanced again from an onExpiration it runs, which still expires each operation once.
 */
class DelayedOperationPurgatoryTest {

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<MockOperation> purgatory =
            DelayedOperationPurgatory.<MockOperation>builder("mock").timer(timer).reaperEnabled(false).build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void tryCompleteElseWatch_everyTryComplete_runsAloneAndBeforeTheCallbacks() {
        MockOperation op = new MockOperation(100_000);

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("key"))).isFalse();
        op.completable = true;
        assertThat(purgatory.checkAndComplete("key")).isEqualTo(1);

        assertThat(op.tryCompleteCalls).hasValue(3); // two by tryCompleteElseWatch, one by checkAndComplete
        assertThat(op.triedConcurrently).isFalse();
        assertThat(op.callbackUnderLockOrDuringTry).isFalse();
    }

    @Test
    void tryCompleteElseWatch_firstTryCompletes_returnsTrueWithoutWatching() {
        MockOperation op = new MockOperation(100_000);
        op.completable = true;

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("key"))).isTrue();

        assertThat(op.tryCompleteCalls).hasValue(1);
        assertThat(op.onCompleteCalls).hasValue(1);
        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(purgatory.stats().completedAtOnce()).isEqualTo(1);
        assertThat(purgatory.stats().completed()).isZero();
    }

    @Test
    void tryCompleteElseWatch_firstTryFails_watchesThenTriesAgain() {
        List<Integer> watchedAtEachTry = new ArrayList<>();
        MockOperation op = new MockOperation(100_000) {
            @Override
            public boolean tryComplete() {
                watchedAtEachTry.add(purgatory.watched());
                return super.tryComplete();
            }
        };

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("a", "b"))).isFalse();

        assertThat(watchedAtEachTry).containsExactly(0, 2); // the watch ran between the two tries
        assertThat(purgatory.watched()).isEqualTo(2);
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watchedKeys()).isEqualTo(2);
        assertThat(timer.size()).isEqualTo(1);
        assertThat(op.isCompleted()).isFalse();
        assertThat(op.outcome()).isNull();
    }

    @Test
    void tryCompleteElseWatch_secondTryCompletes_returnsTrueAndLeavesNothingWatched() {
        MockOperation op = new MockOperation(100_000) {
            @Override
            public boolean tryComplete() {
                if (tryCompleteCalls.get() == 1) {
                    completable = true; // the state changed while the operation was being watched
                }
                return super.tryComplete();
            }
        };

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("a", "b"))).isTrue();

        assertThat(op.tryCompleteCalls).hasValue(2);
        assertThat(op.onCompleteCalls).hasValue(1);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(purgatory.stats().completed()).isEqualTo(1); // it was watched, so not "at once"
        assertThat(purgatory.stats().completedAtOnce()).isZero();
    }

    @Test
    void checkAndComplete_requestSatisfaction_completesOnlyOnceConditionHolds() {
        MockOperation r1 = new MockOperation(100_000);
        MockOperation r2 = new MockOperation(100_000);
        assertThat(purgatory.checkAndComplete("test1")).as("no watchers").isZero();
        assertThat(purgatory.checkAndComplete("test2")).as("no watchers").isZero();

        assertThat(purgatory.tryCompleteElseWatch(r1, List.of("test1"))).isFalse();
        assertThat(purgatory.checkAndComplete("test1")).as("r1 not satisfied").isZero();
        assertThat(purgatory.tryCompleteElseWatch(r2, List.of("test2"))).isFalse();
        assertThat(purgatory.checkAndComplete("test2")).as("r2 not satisfied").isZero();

        r1.completable = true;
        assertThat(purgatory.checkAndComplete("test1")).as("r1 satisfied").isEqualTo(1);
        assertThat(purgatory.checkAndComplete("test1")).as("nothing left on test1").isZero();
        r2.completable = true;
        assertThat(purgatory.checkAndComplete("test2")).as("r2 satisfied").isEqualTo(1);
        assertThat(purgatory.checkAndComplete("test2")).as("nothing left on test2").isZero();

        assertThat(List.of(r1, r2)).allSatisfy(r -> {
            assertThat(r.outcome()).isEqualTo(Outcome.COMPLETED);
            assertThat(r.onCompleteCalls).hasValue(1);
            assertThat(r.onExpirationCalls).hasValue(0);
        });
    }

    @Test
    void advanceClock_toTheDelay_expiresOperationNeverEarlier() {
        long[] expiredAtNanos = {-1};
        MockOperation r1 = new MockOperation(20) {
            @Override
            public void onExpiration() {
                expiredAtNanos[0] = timer.clock().nanoTime();
                super.onExpiration();
            }
        };
        MockOperation r2 = new MockOperation(200_000);
        purgatory.tryCompleteElseWatch(r1, List.of("test1"));
        purgatory.tryCompleteElseWatch(r2, List.of("test2"));

        timer.advanceClock(19);
        assertThat(r1.isCompleted()).as("r1 at 19 ms").isFalse();

        timer.advanceClock(1);
        assertThat(r1.outcome()).as("r1 at 20 ms").isEqualTo(Outcome.EXPIRED);
        assertThat(expiredAtNanos[0]).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(r1.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(r1.outcomeSeenByOnComplete).isEqualTo(Outcome.EXPIRED);
        assertThat(r2.isCompleted()).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
        assertThat(purgatory.watchedKeys()).isEqualTo(1);
    }

    @Test
    void watched_operationsCompletedOutsideThePurgatory_dropAtOnceWithoutAnyPurge() {
        // Kafka's testRequestPurge: there, watched() only shrinks on checks of each key (6, 4, 2, 1).
        MockOperation r1 = new MockOperation(100_000);
        MockOperation r2 = new MockOperation(100_000);
        MockOperation r3 = new MockOperation(100_000);
        purgatory.tryCompleteElseWatch(r1, List.of("test1"));
        purgatory.tryCompleteElseWatch(r2, List.of("test1", "test2"));
        purgatory.tryCompleteElseWatch(r3, List.of("test1", "test2", "test3"));
        assertGauges(3, 6, 3);

        assertThat(r2.forceComplete()).isTrue();
        assertGauges(2, 4, 3);

        assertThat(r3.forceComplete()).isTrue();
        assertGauges(1, 1, 1);

        assertThat(purgatory.checkAndComplete("test1")).isZero();
        assertThat(purgatory.checkAndComplete("test2")).isZero();
        assertThat(purgatory.checkAndComplete("test3")).isZero();
        assertGauges(1, 1, 1);

        assertThat(r1.forceComplete()).isTrue();
        assertGauges(0, 0, 0);
        assertThat(timer.size()).isZero();
        assertThat(purgatory.stats().purges()).isZero();
    }

    @Test
    void cancelForKey_keyWithOperations_returnsThemAndUnwatchesThemFromTheirOtherKeys() {
        MockOperation op1 = new MockOperation(10_000);
        MockOperation op2 = new MockOperation(10_000);
        MockOperation op3 = new MockOperation(10_000);
        purgatory.tryCompleteElseWatch(op1, List.of("test1"));
        purgatory.tryCompleteElseWatch(op2, List.of("test1", "test3"));
        purgatory.tryCompleteElseWatch(op3, List.of("test2"));
        assertGauges(3, 4, 3);

        List<MockOperation> cancelled = purgatory.cancelForKey("test1");

        assertThat(cancelled).containsExactly(op1, op2);
        assertGauges(1, 1, 1); // op2 also left test3
        assertThat(timer.size()).isEqualTo(1);
        assertThat(List.of(op1, op2)).allSatisfy(op -> {
            assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(op.isCancelled()).isTrue();
            assertThat(op.callbacks()).containsExactly("onCancel");
        });
        assertThat(purgatory.cancelForKey("test1")).isEmpty();
        assertThat(purgatory.cancelForKey("test3")).isEmpty();

        timer.advanceClock(10_000);
        assertThat(op3.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(op1.callbacks()).containsExactly("onCancel"); // never expired afterwards
        assertThat(op2.callbacks()).containsExactly("onCancel");
        assertGauges(0, 0, 0);
    }

    @Test
    void cancelForKey_unknownKey_returnsEmptyList() {
        purgatory.tryCompleteElseWatch(new MockOperation(10_000), List.of("known"));

        assertThat(purgatory.cancelForKey("unknown")).isEmpty();
        assertGauges(1, 1, 1);
    }

    @Test
    void checkAndComplete_manyThreadsRacingCompletionAttempts_completesEveryOperation() throws Exception {
        int operations = 100;
        int threads = 20;
        List<MockOperation> ops = new ArrayList<>();
        List<AtomicInteger> attemptsLeft = new ArrayList<>();
        for (int i = 0; i < operations; i++) {
            MockOperation op = new MockOperation(10_000) {
                @Override
                public boolean tryComplete() {
                    boolean ready = completable; // read before yielding, as Kafka's test reads before sleeping
                    Thread.yield();
                    return ready && forceComplete();
                }
            };
            assertThat(purgatory.tryCompleteElseWatch(op, List.of("key" + i))).isFalse();
            ops.add(op);
            attemptsLeft.add(new AtomicInteger(threads));
        }
        AtomicInteger completedByChecks = new AtomicInteger();
        List<TestThreads.Work> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int offset = t * 7;
            work.add(() -> {
                for (int j = 0; j < operations; j++) {
                    int i = (offset + j) % operations;
                    if (attemptsLeft.get(i).decrementAndGet() == 0) {
                        ops.get(i).completable = true; // the last attempt makes it completable
                    }
                    completedByChecks.addAndGet(purgatory.checkAndComplete("key" + i));
                }
            });
        }

        TestThreads.runConcurrently("completion-attempts", work);

        assertThat(ops).allSatisfy(op -> {
            assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
            assertThat(op.onCompleteCalls).hasValue(1);
        });
        assertThat(completedByChecks).hasValue(operations);
        assertGauges(0, 0, 0);
    }

    @Test
    void stats_afterEveryKindOfOutcome_reportsEachCounterExactly() {
        MockOperation atOnce = new MockOperation(100);
        atOnce.completable = true;
        MockOperation completed = new MockOperation(100);
        MockOperation expired = new MockOperation(50);
        MockOperation cancelled = new MockOperation(100);
        MockOperation pending = new MockOperation(100);
        purgatory.tryCompleteElseWatch(atOnce, List.of("a"));
        purgatory.tryCompleteElseWatch(completed, List.of("a", "b"));
        purgatory.tryCompleteElseWatch(expired, List.of("b"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("c"));
        purgatory.tryCompleteElseWatch(pending, List.of("c", "d"));

        completed.forceComplete();
        timer.advanceClock(50);
        cancelled.cancel();

        assertThat(purgatory.stats()).isEqualTo(new PurgatoryStats("mock", 1, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0));
    }

    @Test
    void manualTimer_onExpirationAdvancesTheTimerAgain_everyOperationExpiresOnceAndOnTime() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                "reentrant-advance").timer(timer).build()) {
            List<MockOperation> ops = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                MockOperation op = new MockOperation(1 + 3L * i) {
                    @Override
                    public void onExpiration() {
                        super.onExpiration();
                        timer.advanceClock(3); // re-enters the advance that runs it
                    }
                };
                ops.add(op);
                p.tryCompleteElseWatch(op, List.of("k" + i));
            }

            timer.advanceClock(2);

            assertThat(ops).allSatisfy(op -> {
                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(op.onExpirationCalls).hasValue(1);
            });
            assertThat(timer.size()).isZero();
        }
    }

    private void assertGauges(int numDelayed, int watched, int watchedKeys) {
        assertThat(purgatory.numDelayed()).as("numDelayed").isEqualTo(numDelayed);
        assertThat(purgatory.watched()).as("watched").isEqualTo(watched);
        assertThat(purgatory.watchedKeys()).as("watchedKeys").isEqualTo(watchedKeys);
        purgatory.engine().checkInvariants();
    }
}
