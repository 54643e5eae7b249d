package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a try reports as its own completion (OperationState O7): a completion made during it, on
 * its thread, whatever the try returns or throws; never one that another thread's
 * {@code forceComplete} made while the try ran, so that exactly one caller learns it completed the
 * operation: that {@code forceComplete}'s caller.
 */
class CompletionCountTest {

    /** What the try does once the other thread's forceComplete has won. */
    enum TryEnd { RETURNS_TRUE, RETURNS_FALSE, RETURNS_ITS_FORCE_COMPLETE, THROWS }

    private final ManualTimer timer = new ManualTimer();
    private final AtomicInteger tryFailures = new AtomicInteger();
    private final DelayedOperationPurgatory<Blocking> purgatory = DelayedOperationPurgatory.<Blocking>builder("o7")
            .timer(timer).errorHandler((name, op, callback, error) -> tryFailures.incrementAndGet()).build();

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
    }

    /** An operation whose armed try waits until released, then ends as {@link #end} says. */
    static final class Blocking extends DelayedOperation {
        final CountDownLatch inTry = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger onComplete = new AtomicInteger();
        volatile Thread completedOn;
        volatile boolean armed;
        volatile TryEnd end = TryEnd.RETURNS_FALSE;

        Blocking() {
            super(60_000);
        }

        @Override
        protected boolean tryComplete() {
            if (!armed) {
                return false;
            }
            armed = false;
            inTry.countDown();
            TestThreads.awaitInCallback(release);
            return switch (end) {
                case RETURNS_TRUE -> true;
                case RETURNS_FALSE -> false;
                case RETURNS_ITS_FORCE_COMPLETE -> forceComplete();
                case THROWS -> throw new IllegalStateException("the try fails after the other thread's completion");
            };
        }

        @Override
        protected void onComplete() {
            onComplete.incrementAndGet();
            completedOn = Thread.currentThread();
        }

        @Override
        protected void onExpiration() {
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TryEnd.class)
    void checkAndComplete_anotherThreadCompletesTheOperationDuringItsTry_doesNotCountIt(TryEnd end)
            throws Exception {
        Blocking op = new Blocking();
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        op.end = end;
        op.armed = true;
        AtomicReference<Integer> counted = new AtomicReference<>();
        Thread checker = new Thread(() -> counted.set(purgatory.checkAndComplete("k")), "checker");
        checker.start();
        TestThreads.await(op.inTry, "the check's try began");

        assertThat(op.forceComplete()).as("this thread completes it while the try runs").isTrue();
        op.release.countDown();
        checker.join(TimeUnit.SECONDS.toMillis(TestThreads.BOUND_SECONDS));

        assertThat(checker.isAlive()).isFalse();
        assertThat(counted.get()).as("(O7) not the check's completion, whatever its try did").isZero();
        assertThat(op.onComplete).hasValue(1);
        assertThat(op.completedOn).as("(O5) finished by the try's thread once it returned").isSameAs(checker);
        assertThat(tryFailures).hasValue(end == TryEnd.THROWS ? 1 : 0);
        assertThat(purgatory.stats().completed()).isEqualTo(1);
        assertThat(purgatory.numDelayed()).isZero();
        purgatory.engine().checkInvariants();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TryEnd.class)
    void tryCompleteElseWatch_anotherThreadCompletesTheOperationDuringItsFirstTry_returnsFalse(TryEnd end)
            throws Exception {
        Blocking op = new Blocking();
        op.end = end;
        op.armed = true;
        AtomicReference<Boolean> returned = new AtomicReference<>();
        Thread submitter = new Thread(() -> returned.set(purgatory.tryCompleteElseWatch(op, List.of("k"))),
                "submitter");
        submitter.start();
        TestThreads.await(op.inTry, "the submission's first try began");

        assertThat(op.forceComplete()).isTrue();
        op.release.countDown();
        submitter.join(TimeUnit.SECONDS.toMillis(TestThreads.BOUND_SECONDS));

        assertThat(submitter.isAlive()).isFalse();
        assertThat(returned.get()).as("(O7) not completed by this call").isFalse();
        assertThat(op.onComplete).hasValue(1);
        assertThat(op.completedOn).isSameAs(submitter);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
        assertThat(timer.size()).isZero();
        purgatory.engine().checkInvariants();
    }

    @Test
    void checkAndComplete_theTryCompletesItsOwnOperation_countsIt() {
        Blocking op = new Blocking();
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        op.end = TryEnd.RETURNS_ITS_FORCE_COMPLETE;
        op.armed = true;
        op.release.countDown();

        assertThat(purgatory.checkAndComplete("k")).isOne();

        assertThat(op.onComplete).hasValue(1);
        assertThat(op.completedOn).isSameAs(Thread.currentThread());
    }
}
