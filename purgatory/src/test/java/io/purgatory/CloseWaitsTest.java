package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * What close() waits for before it returns (Engine N4): the callbacks of every operation it
 * settled, and of every expiry already running on an expiration thread, but never its own; and a
 * runtime's close closes what was built on it whole (PurgatoryRuntime P1).
 */
class CloseWaitsTest {

    /** An operation whose onExpiration blocks until released, noting whether it finished. */
    static final class SlowExpiry extends DelayedOperation {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean finished = new AtomicBoolean();

        SlowExpiry(long delayMs) {
            super(delayMs);
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.set(true);
        }
    }

    @Test
    void close_anExpiryRunningOnAnExpirationThread_returnsOnlyOnceItsCallbacksHaveRun() throws Exception {
        DelayedOperationPurgatory<SlowExpiry> p = DelayedOperationPurgatory.<SlowExpiry>builder("waits-for-expiry")
                .build();
        SlowExpiry op = new SlowExpiry(1);
        p.tryCompleteElseWatch(op, List.of("k"));
        assertThat(op.started.await(30, TimeUnit.SECONDS)).as("the expiry began").isTrue();
        AtomicBoolean callbacksDoneWhenCloseReturned = new AtomicBoolean();
        AtomicBoolean closeReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            p.close();
            callbacksDoneWhenCloseReturned.set(op.finished.get());
            closeReturned.set(true);
        }, "closer");
        closer.start();

        ReliabilitySupport.awaitCondition("close() returned, or waits for the expiry",
                () -> closeReturned.get() || LockSupport.getBlocker(closer) == p.engine());
        op.release.countDown();
        closer.join(30_000);

        assertThat(closeReturned).isTrue();
        assertThat(callbacksDoneWhenCloseReturned).as("close() returned after onExpiration finished").isTrue();
    }

    @Test
    void close_calledFromAnExpirationCallback_doesNotWaitForItself() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<DelayedOperationPurgatory<DelayedOperation>> holder = new AtomicReference<>();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("closes-itself").build();
        holder.set(p);
        p.tryCompleteElseWatch(new DelayedOperation(1) {
            @Override
            protected boolean tryComplete() {
                return false;
            }

            @Override
            protected void onComplete() {
            }

            @Override
            protected void onExpiration() {
                holder.get().close();
                closed.countDown();
            }
        }, List.of("k"));

        assertThat(closed.await(5, TimeUnit.SECONDS)).as("close() from the callback returned at once").isTrue();
        assertThat(p.isClosed()).isTrue();
    }

    @Test
    void runtimeClose_keyedWaitsAndAFuturePurgatoryOnIt_areClosedWhole() throws Exception {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("whole").build();
        KeyedWaits<String, String> waits = KeyedWaits.builder("whole-waits").runtime(runtime)
                .retainEvents(Duration.ofMinutes(1), 10).build();
        DelayedFuturePurgatory futures =
                new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("whole-futures").runtime(runtime));
        waits.complete("k", "retained");
        CompletableFuture<String> wait = waits.await("other", Duration.ofMinutes(1));
        CompletableFuture<Integer> done = new CompletableFuture<>();
        CountDownLatch completedOnItsThread = new CountDownLatch(1);
        futures.tryCompleteElseWatch(60_000, List.of(done), completedOnItsThread::countDown);
        done.complete(1); // its completion runs on the purgatory's thread, which stays
        assertThat(completedOnItsThread.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Integer> pending = new CompletableFuture<>();
        futures.tryCompleteElseWatch(60_000, List.of(pending), () -> { });
        assertThat(waits.retainedEvents()).isEqualTo(1);
        assertThat(ReliabilitySupport.findThread("DelayedExecutor-whole-futures")).isNotNull();

        runtime.close();

        assertThat(wait).isCompletedExceptionally();
        assertThat(waits.retainedEvents()).as("the retained events dropped with the waits").isZero();
        assertThat(pending).as("answered by the close policy").isCompletedExceptionally();
        ReliabilitySupport.awaitCondition("the future purgatory's thread stopped",
                () -> ReliabilitySupport.findThread("DelayedExecutor-whole-futures") == null);
    }
}
