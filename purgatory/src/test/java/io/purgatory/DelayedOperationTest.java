package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The operation's own contract: exactly-once settlement, callback order, and the lock. */
class DelayedOperationTest {

    private final boolean[] outerTrying = new boolean[1];

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<MockOperation> purgatory =
            DelayedOperationPurgatory.<MockOperation>builder("ops").timer(timer).reaperEnabled(false).build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void constructor_delayZeroOrMaxDelay_isAccepted() {
        assertThat(new MockOperation(0).delayMs()).isZero();
        assertThat(new MockOperation(Timer.MAX_DELAY_MS).delayMs()).isEqualTo(Timer.MAX_DELAY_MS);
    }

    @Test
    void tryCompleteElseWatch_zeroDelay_expiresBeforeReturning() {
        MockOperation op = new MockOperation(0);

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void forceComplete_pendingOperation_returnsTrueOnlyForTheFirstCall() {
        MockOperation op = new MockOperation(1_000);
        purgatory.tryCompleteElseWatch(op, List.of("k"));

        assertThat(op.forceComplete()).isTrue();
        assertThat(op.onCompleteCalls).as("onComplete ran before forceComplete returned").hasValue(1);
        assertThat(op.forceComplete()).isFalse();
        assertThat(op.cancel()).isFalse();
        timer.advanceClock(1_000);

        assertThat(op.callbacks()).containsExactly("onComplete");
        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(op.isCompleted()).isTrue();
        assertThat(op.isCancelled()).isFalse();
        assertThat(timer.size()).as("it left the timer").isZero();
    }

    @Test
    void forceComplete_operationNeverSubmitted_completesItOnce() {
        MockOperation op = new MockOperation(1_000);

        assertThat(op.outcome()).isNull();
        assertThat(op.isCompleted()).isFalse();
        assertThat(op.forceComplete()).isTrue();
        assertThat(op.forceComplete()).isFalse();

        assertThat(op.callbacks()).containsExactly("onComplete");
        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
    }

    @Test
    void forceComplete_calledInsideTryComplete_runsOnCompleteAfterTryCompleteReturns() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Thread checking = Thread.currentThread();
        MockOperation op = new MockOperation(1_000) {
            @Override
            public boolean tryComplete() {
                if (!completable) {
                    return false;
                }
                boolean won = forceComplete();
                events.add("forceComplete returned " + won);
                events.add("tryComplete returns");
                return won;
            }

            @Override
            public void onComplete() {
                events.add("onComplete on the checking thread: " + (Thread.currentThread() == checking));
                super.onComplete();
            }
        };
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        op.completable = true;

        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);

        assertThat(events).containsExactly("forceComplete returned true", "tryComplete returns",
                "onComplete on the checking thread: true");
    }

    @Test
    void forceComplete_byACallerHoldingTheMonitorOutsideATry_runsOnCompleteBeforeReturning() {
        MockOperation op = new MockOperation(1_000);
        purgatory.tryCompleteElseWatch(op, List.of("k"));

        boolean won;
        synchronized (op) { // the caller's own use of the monitor: the purgatory does not use it
            won = op.forceComplete();
            assertThat(op.callbacks()).as("onComplete ran inside forceComplete").containsExactly("onComplete");
        }

        assertThat(won).isTrue();
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void tryComplete_completingAnotherOperationThroughCheckAndComplete_eachRunsItsCallbacksAfterItsOwnTry() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        MockOperation inner = new MockOperation(1_000) {
            @Override
            public void onComplete() {
                events.add("inner onComplete, outer trying: " + outerTrying[0]);
                super.onComplete();
            }
        };
        MockOperation outer = new MockOperation(1_000) {
            @Override
            public boolean tryComplete() {
                if (!completable) {
                    return false;
                }
                outerTrying[0] = true;
                try {
                    inner.completable = true;
                    events.add("inner completed: " + purgatory.checkAndComplete("inner-key"));
                    boolean won = forceComplete(); // after the nested try: still finished by this try (O4)
                    events.add("outer forceComplete returned " + won);
                    return won;
                } finally {
                    outerTrying[0] = false;
                }
            }

            @Override
            public void onComplete() {
                events.add("outer onComplete, outer trying: " + outerTrying[0]);
                super.onComplete();
            }
        };
        purgatory.tryCompleteElseWatch(inner, List.of("inner-key"));
        purgatory.tryCompleteElseWatch(outer, List.of("outer-key"));
        outer.completable = true;

        assertThat(purgatory.checkAndComplete("outer-key")).isEqualTo(1);

        assertThat(events).containsExactly("inner onComplete, outer trying: true", "inner completed: 1",
                "outer forceComplete returned true", "outer onComplete, outer trying: false");
        assertThat(inner.callbackUnderLockOrDuringTry).isFalse();
        assertThat(outer.callbackUnderLockOrDuringTry).isFalse();
    }

    @Test
    void tryComplete_cancelsItsOwnOperation_runsOnCancelOnlyAndNothingIsWatched() {
        MockOperation op = new MockOperation(1_000) {
            @Override
            public boolean tryComplete() {
                tryCompleteCalls.incrementAndGet();
                cancel();
                return false;
            }
        };

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(op.tryCompleteCalls).as("no second try once settled").hasValue(1);
        assertThat(op.callbacks()).containsExactly("onCancel");
        assertThat(op.callbackUnderLockOrDuringTry).isFalse();
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(purgatory.stats().cancelled()).isEqualTo(1);
    }

    @Test
    void expiry_whileTryCompleteRunsOnAnotherThread_settlesAtOnceAndTheCallbacksRunAfterTheTry() throws Exception {
        CountDownLatch inTryComplete = new CountDownLatch(1);
        CountDownLatch releaseTryComplete = new CountDownLatch(1);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        MockOperation op = new MockOperation(10) {
            @Override
            public boolean tryComplete() {
                if (tryCompleteCalls.incrementAndGet() <= 2) {
                    return false; // the tries of tryCompleteElseWatch
                }
                events.add("tryComplete start");
                inTryComplete.countDown();
                try {
                    releaseTryComplete.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                events.add("tryComplete end");
                return false;
            }

            @Override
            public void onComplete() {
                events.add("onComplete");
                super.onComplete();
            }
        };
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        Thread checker = new Thread(() -> purgatory.checkAndComplete("k"), "checker");
        checker.start();
        TestThreads.await(inTryComplete, "tryComplete");
        Thread expirer = new Thread(() -> timer.advanceClock(10), "expirer");
        expirer.start();
        TestThreads.joinAll(List.of(expirer)); // the expiry does not wait for the try

        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(events).as("its callbacks do").containsExactly("tryComplete start");
        releaseTryComplete.countDown();
        TestThreads.joinAll(List.of(checker));

        assertThat(events).containsExactly("tryComplete start", "tryComplete end", "onComplete");
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
    }

    @Test
    void isCancelled_completedOrExpiredOperation_isFalse() {
        MockOperation completed = new MockOperation(10);
        MockOperation expired = new MockOperation(10);
        purgatory.tryCompleteElseWatch(completed, List.of("k"));
        purgatory.tryCompleteElseWatch(expired, List.of("k"));

        completed.forceComplete(); // removes its timer entry, which is not a cancellation of the operation
        timer.advanceClock(10);

        assertThat(completed.isCancelled()).isFalse();
        assertThat(expired.isCancelled()).isFalse();
        assertThat(expired.outcome()).isEqualTo(Outcome.EXPIRED);
    }
}
