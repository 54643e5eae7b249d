package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A try reports a completion as its own only if the completion was made under it, on its thread
 * (OperationState O7): exactly one caller learns that it completed the operation. The fourth
 * review's defect 4: a try that threw after another thread's forceComplete won was counted too.
 */
class TryReportTest {

    private static final long BOUND_SECONDS = 30; // a failure bound

    @Test
    void checkAndComplete_tryThrowsAfterAnotherThreadsForceCompleteWon_reportsNothing() throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<Racing> purgatory = DelayedOperationPurgatory.<Racing>builder("report")
                .timer(timer).errorHandler((p, op, cb, e) -> { }).build();
        Racing op = new Racing();
        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();
        op.armed.set(true);

        int[] checked = {-1};
        Thread checker = new Thread(() -> checked[0] = purgatory.checkAndComplete("k"), "checker");
        checker.start();
        assertThat(op.inTry.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        boolean forced = op.forceComplete(); // from this thread, while the checker's try runs
        op.forced.countDown();
        checker.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));

        assertThat(forced).as("this thread completed it").isTrue();
        assertThat(checked[0]).as("so the check, whose try then threw, did not").isZero();
        assertThat(op.completions).hasValue(1);
        purgatory.close();
    }

    @Test
    void tryCompleteElseWatch_firstTryThrowsAfterAnotherThreadsForceCompleteWon_returnsFalse() throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<Racing> purgatory = DelayedOperationPurgatory.<Racing>builder("report-submit")
                .timer(timer).errorHandler((p, op, cb, e) -> { }).build();
        Racing op = new Racing();
        op.armed.set(true);

        boolean[] submitted = {true};
        Thread submitter = new Thread(() -> submitted[0] = purgatory.tryCompleteElseWatch(op, List.of("k")),
                "submitter");
        submitter.start();
        assertThat(op.inTry.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        boolean forced = op.forceComplete();
        op.forced.countDown();
        submitter.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));

        assertThat(forced).isTrue();
        assertThat(submitted[0]).as("the submission, whose try then threw, did not complete it").isFalse();
        assertThat(op.completions).hasValue(1);
        purgatory.close();
    }

    @Test
    void checkAndComplete_tryThrowsAfterItsOwnForceComplete_reportsIt() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("own")
                .timer(timer).errorHandler((p, op, cb, e) -> { }).build();
        AtomicBoolean ready = new AtomicBoolean();
        DelayedOperation op = new DelayedOperation(1_000) {
            @Override
            protected boolean tryComplete() {
                if (ready.get() && forceComplete()) {
                    throw new IllegalStateException("after completing it");
                }
                return false;
            }

            @Override
            protected void onComplete() {
            }

            @Override
            protected void onExpiration() {
            }
        };
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        ready.set(true);

        assertThat(purgatory.checkAndComplete("k")).as("Kafka's rule: the try completed it, then threw").isOne();
        purgatory.close();
    }

    /** Its armed try signals, waits for another thread's forceComplete, then throws. */
    static final class Racing extends DelayedOperation {
        final AtomicBoolean armed = new AtomicBoolean();
        final CountDownLatch inTry = new CountDownLatch(1);
        final CountDownLatch forced = new CountDownLatch(1);
        final AtomicInteger completions = new AtomicInteger();

        Racing() {
            super(60_000);
        }

        @Override
        protected boolean tryComplete() {
            if (!armed.get()) {
                return false;
            }
            inTry.countDown();
            try {
                forced.await(BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the try fails after another thread completed the operation");
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
