package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A tryComplete that checks its own keys (OperationState O4; promise 4 of docs/reliability.md):
 * directly, through another operation's callback that runs inside it, through several operations
 * on one key that each check it, or through two purgatories that check each other's keys. Each
 * operation is tried a bounded number of times per check (at most three for operations that check
 * each other), not for ever; a wake-up from another thread meanwhile is still never lost (O3).
 */
class SelfCheckTest {

    /** Tries beyond this mean the livelock: the test stops it there instead of spinning for ever. */
    private static final int LIVELOCK = 10_000;

    /** Tries beyond this stop the operations' own checks, so that a broken bound still returns. */
    private static final int CAP = 100_000;

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

    /** An operation that checks {@code key} of {@code purgatory} on every try and never completes. */
    private static DelayedOperation checking(DelayedOperationPurgatory<DelayedOperation> purgatory, String key,
                                             AtomicInteger tries, AtomicInteger total) {
        return new DelayedCondition(60_000, () -> {
            tries.incrementAndGet();
            if (total.incrementAndGet() < CAP) {
                purgatory.checkAndComplete(key);
            }
            return false;
        });
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

    @Test
    void checkAndComplete_twoOperationsOnOneKeyEachCheckingIt_eachIsTriedAtMostThreeTimes() {
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("fan-out")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicInteger total = new AtomicInteger();
            AtomicInteger first = new AtomicInteger();
            AtomicInteger second = new AtomicInteger();
            p.tryCompleteElseWatch(checking(p, "k", first, total), List.of("k"));
            p.tryCompleteElseWatch(checking(p, "k", second, total), List.of("k"));
            first.set(0);
            second.set(0);

            p.checkAndComplete("k");

            assertThat(first.get()).as("tries of the first operation in one check").isLessThanOrEqualTo(3);
            assertThat(second.get()).as("tries of the second operation in one check").isLessThanOrEqualTo(3);
        }
    }

    @Test
    void checkAndComplete_sixOperationsOnOneKeyEachCheckingIt_returnsAfterABoundedNumberOfTries() {
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("fan-out-6")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicInteger total = new AtomicInteger();
            AtomicInteger ignored = new AtomicInteger();
            for (int i = 0; i < 6; i++) {
                p.tryCompleteElseWatch(checking(p, "k", ignored, total), List.of("k"));
            }
            total.set(0);

            p.checkAndComplete("k");

            assertThat(total.get()).as("tries of six operations in one check (3 each at most)")
                    .isLessThanOrEqualTo(6 * 3);
        }
    }

    @Test
    void checkAndComplete_operationsOfTwoPurgatoriesEachCheckingTheOthersKey_eachIsTriedAtMostThreeTimes() {
        try (DelayedOperationPurgatory<DelayedOperation> left = DelayedOperationPurgatory.builder("left")
                .timerEnabled(false).reaperEnabled(false).build();
             DelayedOperationPurgatory<DelayedOperation> right = DelayedOperationPurgatory.builder("right")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicInteger total = new AtomicInteger();
            AtomicInteger leftTries = new AtomicInteger();
            AtomicInteger rightTries = new AtomicInteger();
            // each checks the other purgatory's key, which checks back: a self-check through two purgatories
            left.tryCompleteElseWatch(checking(right, "r", leftTries, total), List.of("l"));
            right.tryCompleteElseWatch(checking(left, "l", rightTries, total), List.of("r"));
            leftTries.set(0);
            rightTries.set(0);

            left.checkAndComplete("l");

            assertThat(leftTries.get()).as("tries of the checked operation in one check").isLessThanOrEqualTo(3);
            assertThat(rightTries.get()).as("tries of the other, reached only through it").isLessThanOrEqualTo(3);
        }
    }
}
