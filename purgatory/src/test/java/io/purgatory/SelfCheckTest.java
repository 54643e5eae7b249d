package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A tryComplete that checks its own keys (OperationState O4): directly, or through another
 * operation's callback that runs inside it. It is tried a bounded number of times per check, not
 * for ever; a wake-up from another thread meanwhile is still never lost (O3). Before, the nested
 * check asked the holder to retry, whose retry checked again: tens of millions of tries in 2 s.
 */
class SelfCheckTest {

    /** Tries beyond this mean the livelock: the test stops it there instead of spinning for ever. */
    private static final int LIVELOCK = 10_000;

    /** An operation whose tryComplete checks its own key, every time. */
    static final class SelfChecking extends DelayedOperation {
        final AtomicInteger tries = new AtomicInteger();
        volatile DelayedOperationPurgatory<SelfChecking> purgatory;
        volatile boolean completable;
        final AtomicInteger onComplete = new AtomicInteger();

        SelfChecking() {
            super(60_000);
        }

        @Override
        protected boolean tryComplete() {
            if (tries.incrementAndGet() < LIVELOCK) {
                purgatory.checkAndComplete("own");
            }
            return completable && forceComplete();
        }

        @Override
        protected void onComplete() {
            onComplete.incrementAndGet();
        }

        @Override
        protected void onExpiration() {
        }
    }

    private static DelayedOperationPurgatory<SelfChecking> purgatory() {
        return DelayedOperationPurgatory.<SelfChecking>builder("self").timerEnabled(false).reaperEnabled(false)
                .build();
    }

    @Test
    void tryCompleteElseWatch_tryCompleteChecksItsOwnKey_isTriedABoundedNumberOfTimes() {
        try (DelayedOperationPurgatory<SelfChecking> p = purgatory()) {
            SelfChecking op = new SelfChecking();
            op.purgatory = p;

            assertThat(p.tryCompleteElseWatch(op, List.of("own"))).isFalse();

            assertThat(op.tries.get()).as("tries of one submission").isBetween(2, 8);
            assertThat(p.numDelayed()).isEqualTo(1);
        }
    }

    @Test
    void checkAndComplete_tryCompleteChecksItsOwnKey_isTriedABoundedNumberOfTimesAndCompletesWhenItCan() {
        try (DelayedOperationPurgatory<SelfChecking> p = purgatory()) {
            SelfChecking op = new SelfChecking();
            op.purgatory = p;
            p.tryCompleteElseWatch(op, List.of("own"));
            int before = op.tries.get();
            assertThat(before).as("tries of the submission").isLessThan(10);

            assertThat(p.checkAndComplete("own")).isZero();
            assertThat(op.tries.get() - before).as("tries of one check").isBetween(1, 4);

            op.completable = true;
            assertThat(p.checkAndComplete("own")).isEqualTo(1);
            assertThat(op.onComplete).hasValue(1);
            assertThat(p.numDelayed()).isZero();
        }
    }

    @Test
    void checkAndComplete_anotherOperationsCallbackChecksTheFirstsKeyInsideItsTry_isBounded() {
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("through-callbacks")
                .timerEnabled(false).reaperEnabled(false).build();
        try (p) {
            AtomicInteger tries = new AtomicInteger();
            AtomicInteger helpersMade = new AtomicInteger();
            DelayedOperation[] first = new DelayedOperation[1];
            first[0] = new DelayedCondition(60_000, () -> {
                tries.incrementAndGet();
                // each try completes a helper whose onComplete checks "a"
                if (helpersMade.incrementAndGet() < LIVELOCK) {
                    DelayedOperation helper = new DelayedOperation(60_000) {
                        @Override
                        protected boolean tryComplete() {
                            return false;
                        }

                        @Override
                        protected void onComplete() {
                            p.checkAndComplete("a");
                        }

                        @Override
                        protected void onExpiration() {
                        }
                    };
                    helper.forceComplete();
                }
                return false;
            });
            p.tryCompleteElseWatch(first[0], List.of("a"));
            int before = tries.get();
            assertThat(before).as("tries of the submission").isLessThan(10);

            p.checkAndComplete("a");

            assertThat(tries.get() - before).as("tries of one check").isBetween(1, 4);
        }
    }

    @Test
    void checkAndComplete_anotherThreadChecksWhileASelfCheckingTryRuns_itsWakeUpIsNotLost() throws Exception {
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("wake-up")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicBoolean ready = new AtomicBoolean();
            AtomicBoolean armed = new AtomicBoolean();
            CountDownLatch inTry = new CountDownLatch(1);
            CountDownLatch otherChecked = new CountDownLatch(1);
            DelayedCondition op = new DelayedCondition(60_000, () -> {
                boolean seen = ready.get(); // read before the other thread's change
                p.checkAndComplete("a"); // a self-check on every try
                if (armed.compareAndSet(true, false)) { // the check's first try: let the other thread check now
                    inTry.countDown();
                    try {
                        otherChecked.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return seen;
            });
            p.tryCompleteElseWatch(op, List.of("a"));
            Thread checker = new Thread(() -> {
                try {
                    inTry.await();
                } catch (InterruptedException e) {
                    return;
                }
                ready.set(true);
                p.checkAndComplete("a"); // finds the claim taken: asks the holder for one more try (O3)
                otherChecked.countDown();
            });
            checker.start();
            armed.set(true);

            p.checkAndComplete("a");
            checker.join();

            assertThat(op.isCompleted()).as("the other thread's wake-up was honoured").isTrue();
            assertThat(op.future()).isCompletedWithValue(Outcome.COMPLETED);
        }
    }

    @Test
    void checkAndComplete_aSelfCheckOnTheLastAllowedRetry_isDroppedAndTheOperationStaysPendingForTheNextCheck() {
        try (DelayedOperationPurgatory<SelfChecking> p = purgatory()) {
            SelfChecking op = new SelfChecking();
            op.purgatory = p;
            p.tryCompleteElseWatch(op, List.of("own"));

            for (int i = 0; i < 3; i++) {
                assertThat(p.checkAndComplete("own")).isZero();
            }

            assertThat(op.tries.get()).as("bounded on every check, not only the first").isLessThan(20);
            assertThat(p.numDelayed()).isEqualTo(1);
        }
    }
}
