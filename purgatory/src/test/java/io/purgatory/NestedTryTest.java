package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The claim (O2-O4, O7) when tries nest: a tryComplete that calls checkAndComplete reaches its own
 * operation again, or another operation whose tryComplete settles the first. The nested check asks
 * the outer try for one more; the callbacks run once, after the outer try returns, and a check
 * reports a completion only if its own tryComplete returned true (Kafka's rule). Tries on two
 * threads that each check the other's key inside their try do not deadlock, and both complete.
 */
class NestedTryTest {

    private final DelayedOperationPurgatory<Op> p1 = purgatory("p1");
    private final DelayedOperationPurgatory<Op> p2 = purgatory("p2");

    @AfterEach
    void tearDown() {
        p1.engine().checkInvariants();
        p2.engine().checkInvariants();
        p1.close();
        p2.close();
    }

    private static DelayedOperationPurgatory<Op> purgatory(String name) {
        return DelayedOperationPurgatory.<Op>builder(name).timerEnabled(false).reaperEnabled(false).build();
    }

    @Test
    void checkAndComplete_tryCompleteReachesItsOwnOperationAgain_callbacksOnceAfterTheOuterTry() {
        Op a = new Op();
        p1.tryCompleteElseWatch(a, List.of("k"));
        int[] tries = {0};
        int[] innerCount = {-1};
        a.body = () -> {
            if (tries[0]++ == 0) {
                innerCount[0] = p1.checkAndComplete("k"); // a nested try of a itself completes it
                return false;
            }
            return a.forceComplete();
        };

        int outerCount = p1.checkAndComplete("k");

        assertThat(a.onComplete).hasValue(1);
        assertThat(a.callbackUnderAMonitor).isFalse();
        assertThat(innerCount[0]).as("the inner check leaves the completion to the outer try").isZero();
        assertThat(outerCount).isEqualTo(1);
        assertThat(p1.watched()).isZero();
    }

    @Test
    void checkAndComplete_anotherOperationsTrySettlesTheOuterOne_callbacksDeferredToTheOuterTry() {
        Op a = new Op();
        Op b = new Op();
        p1.tryCompleteElseWatch(a, List.of("ka"));
        p2.tryCompleteElseWatch(b, List.of("kb"));
        b.body = a::forceComplete; // settles a while a's try is on the stack below
        a.body = () -> {
            p2.checkAndComplete("kb");
            a.onCompleteBeforeTryReturned = a.onComplete.get() > 0;
            return false;
        };

        int count = p1.checkAndComplete("ka");

        assertThat(a.onComplete).hasValue(1);
        assertThat(a.onCompleteBeforeTryReturned).as("onComplete overlapped a's tryComplete").isFalse();
        assertThat(a.callbackUnderAMonitor).isFalse();
        assertThat(count).as("(O7) completed during a's try, on its thread: a's check reports it, whatever the try"
                + " returned").isOne();
        assertThat(b.onComplete).hasValue(0);
    }

    @Test
    void checkAndComplete_cycleThroughTwoPurgatories_theOuterOperationCompletesOnce() {
        Op a = new Op();
        Op b = new Op();
        p1.tryCompleteElseWatch(a, List.of("ka"));
        p2.tryCompleteElseWatch(b, List.of("kb"));
        int[] tries = {0};
        a.body = () -> {
            if (tries[0]++ == 0) {
                p2.checkAndComplete("kb"); // b's try checks ka again: a nested try of a completes it
                return false;
            }
            return a.forceComplete();
        };
        b.body = () -> {
            p1.checkAndComplete("ka");
            return false;
        };

        assertThat(p1.checkAndComplete("ka")).isEqualTo(1);

        assertThat(a.onComplete).hasValue(1);
        assertThat(a.callbackUnderAMonitor).isFalse();
        assertThat(b.isCompleted()).isFalse();
    }

    @Test
    void nestedChecksInsideTries_eachChecksTheOthersKeyOnTwoThreads_noDeadlockAndBothComplete() {
        DelayedOperationPurgatory<Nesting> p = DelayedOperationPurgatory.<Nesting>builder("nesting")
                .timerEnabled(false).reaperEnabled(false).build();
        CyclicBarrier bothTrying = new CyclicBarrier(2);
        Nesting a = new Nesting(p, "b", bothTrying);
        Nesting b = new Nesting(p, "a", bothTrying);
        p.tryCompleteElseWatch(a, List.of("a"));
        p.tryCompleteElseWatch(b, List.of("b"));
        a.armed = true;
        b.armed = true;

        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Thread t1 = new Thread(() -> p.checkAndComplete("a"), "checks-a");
            Thread t2 = new Thread(() -> p.checkAndComplete("b"), "checks-b");
            t1.start();
            t2.start();
            t1.join();
            t2.join();
        }, "A's try checks B's key while B's try checks A's: before, monitor against monitor, for ever");

        assertThat(a.completions).hasValue(1);
        assertThat(b.completions).hasValue(1);
        assertThat(p.numDelayed()).isZero();
        p.engine().checkInvariants();
        p.close();
    }

    /** Records its callbacks and whether one ran holding its own monitor or the other's. */
    static final class Op extends DelayedOperation {
        final AtomicInteger onComplete = new AtomicInteger();
        volatile BooleanSupplier body = () -> false;
        volatile boolean callbackUnderAMonitor;
        volatile boolean onCompleteBeforeTryReturned;
        Op() {
            super(60_000);
        }

        @Override
        protected boolean tryComplete() {
            return body.getAsBoolean();
        }

        @Override
        protected void onComplete() {
            onComplete.incrementAndGet();
            if (Thread.holdsLock(this)) {
                callbackUnderAMonitor = true;
            }
        }

        @Override
        protected void onExpiration() {
        }
    }

    /** Completes once armed; its first armed try waits for the other's try, then checks the other's key. */
    static final class Nesting extends DelayedOperation {
        final DelayedOperationPurgatory<Nesting> purgatory;
        final String otherKey;
        final CyclicBarrier bothTrying;
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean armed;
        private boolean nested;

        Nesting(DelayedOperationPurgatory<Nesting> purgatory, String otherKey, CyclicBarrier bothTrying) {
            super(60_000);
            this.purgatory = purgatory;
            this.otherKey = otherKey;
            this.bothTrying = bothTrying;
        }

        @Override
        protected boolean tryComplete() {
            if (!armed) {
                return false;
            }
            if (!nested) {
                nested = true;
                try {
                    bothTrying.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                purgatory.checkAndComplete(otherKey);
            }
            return forceComplete();
        }

        @Override
        protected void onComplete() {
            completions.incrementAndGet();
        }

        @Override
        protected void onExpiration() {
        }
    }
}
