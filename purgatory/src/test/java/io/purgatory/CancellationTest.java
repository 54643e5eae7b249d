package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** cancel(): settles with CANCELLED, runs onCancel only, and is mutually exclusive with completion and expiry. */
class CancellationTest {

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<MockOperation> purgatory =
            DelayedOperationPurgatory.<MockOperation>builder("cancel").timer(timer).reaperEnabled(false).build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void cancel_pendingOperation_runsOnCancelOnceAndLeavesEveryKeyAndTheTimer() {
        MockOperation op = new MockOperation(100);
        MockOperation neighbour = new MockOperation(1_000);
        purgatory.tryCompleteElseWatch(op, List.of("a", "b", "c"));
        purgatory.tryCompleteElseWatch(neighbour, List.of("b"));

        assertThat(op.cancel()).isTrue();

        assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(op.isCancelled()).isTrue();
        assertThat(op.isCompleted()).isTrue();
        assertThat(op.callbacks()).containsExactly("onCancel");
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
        assertThat(purgatory.watchedKeys()).isEqualTo(1);
        assertThat(timer.size()).isEqualTo(1);
        assertThat(purgatory.stats().cancelled()).isEqualTo(1);

        op.completable = true;
        assertThat(purgatory.checkAndComplete("a")).isZero();
        assertThat(op.cancel()).isFalse();
        assertThat(op.forceComplete()).isFalse();
        timer.advanceClock(100);
        assertThat(op.callbacks()).containsExactly("onCancel");
        assertThat(op.tryCompleteCalls).as("never tried once settled").hasValue(2);
    }

    @Test
    void cancel_completedOrExpiredOperation_returnsFalseAndRunsNothing() {
        MockOperation completed = new MockOperation(100);
        MockOperation expired = new MockOperation(100);
        purgatory.tryCompleteElseWatch(completed, List.of("a"));
        purgatory.tryCompleteElseWatch(expired, List.of("b"));
        completed.forceComplete();
        timer.advanceClock(100);

        assertThat(completed.cancel()).isFalse();
        assertThat(expired.cancel()).isFalse();

        assertThat(completed.callbacks()).containsExactly("onComplete");
        assertThat(expired.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(purgatory.stats().cancelled()).isZero();
    }

    @Test
    void cancel_operationNeverSubmitted_runsOnCancelAndRefusesLaterSubmission() {
        MockOperation op = new MockOperation(100);

        assertThat(op.cancel()).isTrue();

        assertThat(op.callbacks()).containsExactly("onCancel");
        assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
    }

    @Test
    void forceComplete_manyThreadsRacing_exactlyOneWins() throws Exception {
        for (int round = 0; round < 200; round++) {
            MockOperation op = new MockOperation(1_000);
            purgatory.tryCompleteElseWatch(op, List.of("k"));
            AtomicInteger wins = new AtomicInteger();
            List<TestThreads.Work> work = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                work.add(() -> {
                    if (op.forceComplete()) {
                        wins.incrementAndGet();
                    }
                });
            }

            TestThreads.runConcurrently("force", work);

            assertThat(wins).hasValue(1);
            assertThat(op.callbacks()).containsExactly("onComplete");
        }
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.stats().completed()).isEqualTo(200);
    }

    @Test
    void cancelAndForceComplete_racingThreads_exactlyOneSettlesEachOperation() throws Exception {
        int cancelWins = 0;
        int forceWins = 0;
        for (int round = 0; round < 300; round++) {
            MockOperation op = new MockOperation(1_000);
            op.completable = false;
            purgatory.tryCompleteElseWatch(op, List.of("k", "k" + round % 3));
            boolean[] won = new boolean[2];

            TestThreads.runConcurrently("cancel-vs-force", List.of(
                    () -> won[0] = op.cancel(),
                    () -> won[1] = op.forceComplete()));

            assertThat(won[0] ^ won[1]).as("exactly one wins").isTrue();
            if (won[0]) {
                cancelWins++;
                assertThat(op.callbacks()).containsExactly("onCancel");
            } else {
                forceWins++;
                assertThat(op.callbacks()).containsExactly("onComplete");
            }
        }
        assertThat(purgatory.stats().cancelled()).isEqualTo(cancelWins);
        assertThat(purgatory.stats().completed()).isEqualTo(forceWins);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void cancelForceCompleteAndExpiry_duringAnotherThreadsTry_exactlyOneSettlesItAndItsCallbacksWaitForTheTry()
            throws Exception {
        CountDownLatch inTryComplete = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        MockOperation op = new MockOperation(10) {
            @Override
            public boolean tryComplete() {
                if (tryCompleteCalls.incrementAndGet() > 2) { // past the tries of tryCompleteElseWatch
                    inTryComplete.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return false;
            }
        };
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        Thread checker = new Thread(() -> purgatory.checkAndComplete("k"), "checker");
        checker.start();
        TestThreads.await(inTryComplete, "tryComplete holding the claim");
        boolean[] won = new boolean[2];
        Thread canceller = new Thread(() -> won[0] = op.cancel(), "canceller");
        Thread forcer = new Thread(() -> won[1] = op.forceComplete(), "forcer");
        Thread expirer = new Thread(() -> timer.advanceClock(10), "expirer");
        List<Thread> contenders = List.of(canceller, forcer, expirer);
        contenders.forEach(Thread::start);
        TestThreads.joinAll(contenders); // none waits for the try

        assertThat(op.isCompleted()).as("settled by one of them").isTrue();
        assertThat(op.callbacks()).as("the callbacks wait for the try to return").isEmpty();
        release.countDown();
        TestThreads.joinAll(List.of(checker));

        int settlements = op.onCancelCalls.get() + op.onCompleteCalls.get();
        assertThat(settlements).as("callbacks of exactly one settlement").isEqualTo(1);
        if (won[0]) {
            assertThat(won[1]).isFalse();
            assertThat(op.callbacks()).containsExactly("onCancel");
        } else if (won[1]) {
            assertThat(op.callbacks()).containsExactly("onComplete");
        } else {
            assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
        }
        assertThat(purgatory.stats().completed() + purgatory.stats().cancelled() + purgatory.stats().expired())
                .isEqualTo(1);
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void cancelForceCompleteAndExpiry_racingOnASystemTimer_settleEachOperationExactlyOnce() throws Exception {
        raceCancelForceAndExpiry(2_000);
    }


    /** Submits {@code n} short-lived operations, then races a forcer and a canceller against the reaper. */
    static void raceCancelForceAndExpiry(int n) throws Exception {
        CountDownLatch finished = new CountDownLatch(n);
        List<MockOperation> ops = new ArrayList<>();
        boolean[] forceWon = new boolean[n];
        boolean[] cancelWon = new boolean[n];
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("race3")
                .shards(8).build()) {
            for (int i = 0; i < n; i++) {
                MockOperation op = new MockOperation(1 + i % 3, finished);
                p.tryCompleteElseWatch(op, List.of("k" + i % 7, "j" + i % 5));
                ops.add(op);
            }

            TestThreads.runConcurrently("race3", List.of(
                    () -> {
                        for (int i = 0; i < n; i++) {
                            forceWon[i] = ops.get(i).forceComplete();
                        }
                    },
                    () -> {
                        for (int i = n - 1; i >= 0; i--) {
                            cancelWon[i] = ops.get(i).cancel();
                        }
                    }));
            TestThreads.await(finished, "every operation's last callback");

            int completed = 0;
            int cancelled = 0;
            int expired = 0;
            for (int i = 0; i < n; i++) {
                MockOperation op = ops.get(i);
                assertThat(forceWon[i] && cancelWon[i]).as("op %d won twice", i).isFalse();
                if (forceWon[i]) {
                    completed++;
                    assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
                    assertThat(op.callbacks()).containsExactly("onComplete");
                } else if (cancelWon[i]) {
                    cancelled++;
                    assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
                    assertThat(op.callbacks()).containsExactly("onCancel");
                } else {
                    expired++;
                    assertThat(op.outcome()).as("op %d: neither thread won, so it expired", i)
                            .isEqualTo(Outcome.EXPIRED);
                    assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
                }
                assertThat(op.callbackUnderLockOrDuringTry).isFalse();
            }
            PurgatoryStats stats = p.stats();
            assertThat(stats.completed()).isEqualTo(completed);
            assertThat(stats.cancelled()).isEqualTo(cancelled);
            assertThat(stats.expired()).isEqualTo(expired);
            assertThat(stats.callbackErrors()).isZero();
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThat(p.watchedKeys()).isZero();
            p.engine().checkInvariants();
        }
    }
}
