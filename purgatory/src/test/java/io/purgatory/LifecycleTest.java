package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.SystemTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * close(): idempotent, prompt, settles everything by its policy, also while submissions, checks
 * and cancels race it, with the counters adding up; threads are daemons named after the purgatory.
 */
class LifecycleTest {

    private final ManualTimer timer = new ManualTimer();

    @AfterEach
    void tearDown() {
        timer.close();
    }

    @Test
    void close_calledTwice_isIdempotent() {
        DelayedOperationPurgatory<MockOperation> p = manual("twice", ClosePolicy.EXPIRE);
        MockOperation op = new MockOperation(100);
        p.tryCompleteElseWatch(op, List.of("k"));

        p.close();
        p.close();

        assertThat(p.isClosed()).isTrue();
        assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
    }

    @Test
    void close_calledConcurrently_returnsOnlyOnceTheFirstCloseHasSettledEverything() throws Exception {
        DelayedOperationPurgatory<MockOperation> p = manual("concurrent-close", ClosePolicy.EXPIRE);
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean callbackFinished = new AtomicBoolean();
        MockOperation blocking = new MockOperation(100) {
            @Override
            public void onExpiration() {
                super.onExpiration();
                inCallback.countDown();
                TestThreads.awaitInCallback(release);
                callbackFinished.set(true);
            }
        };
        p.tryCompleteElseWatch(blocking, List.of("k"));
        Thread first = new Thread(p::close, "first-close");
        first.start();
        TestThreads.await(inCallback, "close expiring the operation");

        AtomicBoolean settledWhenSecondReturned = new AtomicBoolean();
        Thread second = new Thread(() -> {
            p.close();
            settledWhenSecondReturned.set(callbackFinished.get());
        }, "second-close");
        second.start();
        TestThreads.awaitState(second, Thread.State.TIMED_WAITING); // a bounded wait for the first (N5)
        release.countDown();
        first.join();
        second.join();

        assertThat(settledWhenSecondReturned).isTrue();
        assertThat(blocking.callbacks()).containsExactly("onComplete", "onExpiration");
    }

    @Test
    void reaper_beforeFirstSubmission_isNotStarted() {
        try (DelayedOperationPurgatory<MockOperation> p = new DelayedOperationPurgatory<>("lazy-reaper")) {
            assertThat(TestThreads.reaperAlive(p)).isFalse();
            assertThat(TestThreads.findThread("ExpirationReaper-lazy-reaper")).isNull();
        }
    }

    @Test
    void close_reaperRunning_stopsTheDaemonReaperThreadBeforeReturning() {
        DelayedOperationPurgatory<MockOperation> p = new DelayedOperationPurgatory<>("reaped");
        p.tryCompleteElseWatch(new MockOperation(100_000), List.of("k"));
        assertThat(TestThreads.findThread("ExpirationReaper-reaped")).isNotNull();
        assertThat(TestThreads.reaperAlive(p)).isTrue();
        Thread reaper = TestThreads.findThread("ExpirationReaper-reaped");
        assertThat(reaper).isNotNull();
        assertThat(reaper.isDaemon()).isTrue();

        p.close();

        assertThat(TestThreads.reaperAlive(p)).isFalse();
        assertThat(reaper.isAlive()).isFalse();
    }

    @Test
    void expiration_defaultExecutor_runsOnDaemonThreadNamedAfterPurgatory() throws Exception {
        AtomicReference<Thread> expiredOn = new AtomicReference<>();
        CountDownLatch expired = new CountDownLatch(1);
        try (DelayedOperationPurgatory<MockOperation> p = new DelayedOperationPurgatory<>("named")) {
            p.tryCompleteElseWatch(new MockOperation(1) {
                @Override
                public void onExpiration() {
                    expiredOn.set(Thread.currentThread());
                    expired.countDown();
                }
            }, List.of("k"));

            TestThreads.await(expired, "expiration");
        }

        assertThat(expiredOn.get().getName()).matches("named-expiration(-\\d+)?");
        assertThat(expiredOn.get().isDaemon()).isTrue();
    }

    @Test
    void close_policyExpire_runsOnCompleteThenOnExpirationOnTheClosingThread() {
        DelayedOperationPurgatory<MockOperation> p = manual("expire", ClosePolicy.EXPIRE);
        AtomicReference<Thread> expiredOn = new AtomicReference<>();
        MockOperation multiKey = new MockOperation(100) {
            @Override
            public void onExpiration() {
                expiredOn.set(Thread.currentThread());
                super.onExpiration();
            }
        };
        MockOperation single = new MockOperation(100);
        MockOperation completed = new MockOperation(100);
        p.tryCompleteElseWatch(multiKey, List.of("a", "b", "c"));
        p.tryCompleteElseWatch(single, List.of("a"));
        p.tryCompleteElseWatch(completed, List.of("b"));
        completed.forceComplete();

        p.close();

        assertThat(multiKey.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(multiKey.outcomeSeenByOnComplete).isEqualTo(Outcome.EXPIRED);
        assertThat(single.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(completed.callbacks()).containsExactly("onComplete");
        assertThat(expiredOn.get()).isSameAs(Thread.currentThread());
        assertAllSettled(p);
        assertThat(p.stats().expired()).isEqualTo(2);
        assertThat(p.stats().completed()).isEqualTo(1);
    }

    @Test
    void close_policyComplete_runsOnCompleteOnly() {
        DelayedOperationPurgatory<MockOperation> p = manual("complete", ClosePolicy.COMPLETE);
        MockOperation op = new MockOperation(100);
        p.tryCompleteElseWatch(op, List.of("a", "b"));

        p.close();

        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(op.callbacks()).containsExactly("onComplete");
        assertAllSettled(p);
        assertThat(p.stats().completed()).isEqualTo(1);
    }

    @Test
    void close_policyCancel_runsOnCancelOnly() {
        DelayedOperationPurgatory<MockOperation> p = manual("cancel", ClosePolicy.CANCEL);
        MockOperation op = new MockOperation(100);
        p.tryCompleteElseWatch(op, List.of("a", "b"));

        p.close();

        assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(op.callbacks()).containsExactly("onCancel");
        assertAllSettled(p);
        assertThat(p.stats().cancelled()).isEqualTo(1);
    }

    @Test
    void tryCompleteElseWatch_afterClose_throwsNamingPurgatoryAndLeavesOperationUntouched() {
        DelayedOperationPurgatory<MockOperation> p = manual("closed", ClosePolicy.EXPIRE);
        p.close();
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> p.tryCompleteElseWatch(op, List.of("k")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'closed'")
                .hasMessageContaining("closed");

        assertThat(op.tryCompleteCalls).hasValue(0);
        assertThat(op.isCompleted()).isFalse();
        assertThat(p.checkAndComplete("k")).isZero();
        assertThat(p.cancelForKey("k")).isEmpty();
        try (DelayedOperationPurgatory<MockOperation> other = manual("other", ClosePolicy.EXPIRE)) {
            assertThat(other.tryCompleteElseWatch(op, List.of("k"))).as("still submittable elsewhere").isFalse();
            assertThat(other.numDelayed()).isEqualTo(1);
        }
    }

    @Test
    void close_racingSubmissions_settlesEveryAcceptedOperationExactlyOnce() throws Exception {
        for (int round = 0; round < 20; round++) {
            DelayedOperationPurgatory<MockOperation> p = new DelayedOperationPurgatory<>("race-" + round);
            ConcurrentLinkedQueue<MockOperation> accepted = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<MockOperation> refused = new ConcurrentLinkedQueue<>();
            CountDownLatch someAccepted = new CountDownLatch(50);
            List<TestThreads.Work> work = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int thread = t;
                work.add(() -> {
                    for (int i = 0; ; i++) {
                        MockOperation op = new MockOperation(100_000);
                        try {
                            p.tryCompleteElseWatch(op, List.of("k" + (i % 5), "t" + thread));
                        } catch (IllegalStateException closed) {
                            refused.add(op);
                            return;
                        }
                        accepted.add(op);
                        someAccepted.countDown();
                    }
                });
            }
            work.add(() -> {
                someAccepted.await();
                p.close();
            });

            TestThreads.runConcurrently("close-race", work);

            assertThat(accepted)
                    .allSatisfy(op -> assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration"));
            assertThat(refused).hasSize(3).allSatisfy(op -> {
                assertThat(op.isCompleted()).isFalse();
                assertThat(op.tryCompleteCalls).hasValue(0);
            });
            assertAllSettled(p);
            assertThat(p.stats().expired()).isEqualTo(accepted.size());
        }
    }

    @Test
    void close_twoPurgatoriesSharingASystemTimer_stopsBothReapersAndLeavesTheTimerOpen() throws Exception {
        try (SystemTimer shared = new SystemTimer("shared")) {
            DelayedOperationPurgatory<MockOperation> first =
                    DelayedOperationPurgatory.<MockOperation>builder("first-of-two")
                    .timer(shared).build();
            DelayedOperationPurgatory<MockOperation> second =
                    DelayedOperationPurgatory.<MockOperation>builder("second-of-two")
                    .timer(shared).build();
            CountDownLatch expired = new CountDownLatch(2);
            first.tryCompleteElseWatch(new MockOperation(1, expired), List.of("k"));
            second.tryCompleteElseWatch(new MockOperation(1, expired), List.of("k"));
            TestThreads.await(expired, "expiry in both purgatories"); // either reaper may drive the shared timer

            first.close();
            second.close();

            assertThat(TestThreads.reaperAlive(first)).isFalse();
            assertThat(TestThreads.reaperAlive(second)).isFalse();
            RanTask later = new RanTask(1);
            shared.add(later); // still open
            assertThat(shared.size()).isEqualTo(1);
        }
    }

    @Test
    void reaper_emptiedKeyListEvenWithAMutatedHashCode_isSweptWithoutAnyCall() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("auto-purge")
                .build()) {
            PurgatoryMetricsTest.MutableKey key = new PurgatoryMetricsTest.MutableKey(1);
            MockOperation op = new MockOperation(100_000);
            p.tryCompleteElseWatch(op, List.of(key));
            key.hash = 2;
            op.forceComplete();
            assertThat(p.watchedKeys()).isZero();
            assertThat(p.engine().counters().emptyLists()).isEqualTo(1);

            long deadline = System.nanoTime()
                    + java.util.concurrent.TimeUnit.SECONDS.toNanos(TestThreads.BOUND_SECONDS);
            while (p.stats().purges() == 0 && System.nanoTime() - deadline < 0) {
                Thread.yield(); // the reaper sweeps kept lists about once a second
            }

            assertThat(p.stats().purges()).isGreaterThanOrEqualTo(1);
            assertThat(p.engine().counters().emptyLists()).isZero();
            p.engine().checkInvariants();
        }
    }

    @Test
    void close_racingSubmissionsChecksAndCancels_answersEveryAcceptedOperationOnceAndTheCountersAddUp()
            throws Exception {
        for (int round = 0; round < 20; round++) {
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                    "close-race-" + round).build();
            List<List<MockOperation>> accepted = new ArrayList<>();
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                List<MockOperation> mine = new ArrayList<>();
                accepted.add(mine);
                String own = "t" + t;
                work.add(() -> {
                    for (int i = 0; i < 300; i++) {
                        MockOperation op = new MockOperation(i % 5);
                        try {
                            p.tryCompleteElseWatch(op, List.of("k" + (i % 7), own));
                            mine.add(op);
                        } catch (IllegalStateException closed) {
                            assertThat(p.isClosed()).isTrue();
                        }
                        if (i % 3 == 0) {
                            p.checkAndComplete("k" + (i % 7));
                        }
                        if (i % 11 == 0) {
                            op.cancel();
                        }
                    }
                });
            }
            work.add(p::close);

            ReliabilitySupport.runConcurrently("close-race", work);

            int total = 0;
            for (List<MockOperation> mine : accepted) {
                for (MockOperation op : mine) {
                    total++;
                    assertThat(op.isCompleted()).isTrue();
                    assertThat(op.onCompleteCalls.get() + op.onCancelCalls.get()).as("answered once").isEqualTo(1);
                    assertThat(op.onExpirationCalls.get()).isEqualTo(op.outcome() == Outcome.EXPIRED ? 1 : 0);
                }
            }
            PurgatoryStats stats = p.stats();
            assertThat(stats.completed() + stats.completedAtOnce() + stats.expired() + stats.cancelled())
                    .as("settles counted").isEqualTo(total);
            assertThat(stats.pending()).isZero();
        }
    }

    private DelayedOperationPurgatory<MockOperation> manual(String name, ClosePolicy policy) {
        return DelayedOperationPurgatory.<MockOperation>builder(name).timer(timer).reaperEnabled(false)
                .closePolicy(policy).build();
    }

    private void assertAllSettled(DelayedOperationPurgatory<MockOperation> p) {
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        p.engine().checkInvariants();
        if (EngineInternals.timer(p.engine().runtime()) == timer) {
            assertThat(timer.size()).isZero();
        }
    }
}
