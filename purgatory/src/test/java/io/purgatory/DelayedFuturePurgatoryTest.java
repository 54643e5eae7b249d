package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Kafka's {@code DelayedFutureTest}, deterministic on a {@link ManualTimer}. */
class DelayedFuturePurgatoryTest {

    private final ManualTimer timer = new ManualTimer();
    private final DelayedFuturePurgatory purgatory = new DelayedFuturePurgatory(
            DelayedOperationPurgatory.<DelayedFuture<?>>builder("futures").timer(timer).reaperEnabled(false));
    private final AtomicInteger result = new AtomicInteger(-1);
    private final CountDownLatch callbackRan = new CountDownLatch(1);

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void tryCompleteElseWatch_futuresAlreadyComplete_runsCallbackSynchronouslyWithoutExecutor() {
        List<CompletableFuture<Integer>> futures = List.of(CompletableFuture.completedFuture(10),
                CompletableFuture.completedFuture(11));

        DelayedFuture<Integer> op = purgatory.tryCompleteElseWatch(100_000, futures, () -> result.set(sum(futures)));

        assertThat(result).hasValue(21);
        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(purgatory.executorStarted()).isFalse();
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void tryCompleteElseWatch_twoPendingFutures_completesAfterBothOnTheExecutorThread() throws Exception {
        CompletableFuture<Integer> f1 = new CompletableFuture<>();
        CompletableFuture<Integer> f2 = new CompletableFuture<>();
        List<CompletableFuture<Integer>> futures = List.of(f1, f2);
        AtomicReference<Thread> callbackThread = new AtomicReference<>();

        DelayedFuture<Integer> op = purgatory.tryCompleteElseWatch(100_000, futures, () -> {
            result.set(sum(futures));
            callbackThread.set(Thread.currentThread());
            callbackRan.countDown();
        });
        assertThat(purgatory.executorStarted()).isTrue();
        assertThat(purgatory.numDelayed()).isEqualTo(1);

        f1.complete(20);
        assertThat(op.isCompleted()).as("one future still pending").isFalse();
        assertThat(result).hasValue(-1);
        f2.complete(21);
        TestThreads.await(callbackRan, "callback");

        assertThat(result).hasValue(41);
        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(callbackThread.get().getName()).isEqualTo("DelayedExecutor-futures");
        assertThat(callbackThread.get().isDaemon()).isTrue();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.engine().counters().entries()).as("each operation is its own key: it leaves at once")
                .isZero();
    }

    @Test
    void tryCompleteElseWatch_onePendingOneComplete_completesWhenThePendingOneDoes() throws Exception {
        CompletableFuture<Integer> pending = new CompletableFuture<>();
        List<CompletableFuture<Integer>> futures = List.of(pending, CompletableFuture.completedFuture(31));

        purgatory.tryCompleteElseWatch(100_000, futures, () -> {
            result.set(sum(futures));
            callbackRan.countDown();
        });
        assertThat(result).hasValue(-1);
        pending.complete(30);
        TestThreads.await(callbackRan, "callback");

        assertThat(result).hasValue(61);
    }

    @Test
    void tryCompleteElseWatch_timeoutPasses_failsPendingFuturesAndKeepsCompletedValues() {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        CompletableFuture<Integer> never = new CompletableFuture<>();
        List<CompletableFuture<Integer>> futures = List.of(done, never);
        AtomicReference<String> seen = new AtomicReference<>();
        DelayedFuture<Integer> op = purgatory.tryCompleteElseWatch(2_000, futures, () -> {
            seen.set(done.join() + "/" + never.isCompletedExceptionally());
        });
        done.complete(40);

        timer.advanceClock(1_999);
        assertThat(op.isCompleted()).isFalse();
        timer.advanceClock(1);

        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(done).isCompletedWithValue(40);
        assertThat(never).isCompletedExceptionally();
        assertThat(catchCause(never)).isInstanceOf(TimeoutException.class).hasMessageContaining("2000 ms");
        assertThat(seen.get()).isEqualTo("40/true");
        assertThat(op.futures()).containsExactly(done, never);
    }

    @Test
    void close_pendingOperation_failsItsFuturesWithTimeout() {
        CompletableFuture<Integer> never = new CompletableFuture<>();
        AtomicInteger callbacks = new AtomicInteger();
        purgatory.tryCompleteElseWatch(100_000, List.of(never), callbacks::incrementAndGet);

        purgatory.close();

        assertThat(catchCause(never)).isInstanceOf(TimeoutException.class);
        assertThat(callbacks).hasValue(1);
    }

    @Test
    void cancelForKey_pendingOperation_cancelsItsFuturesAndRunsTheCallbackOnce() {
        CompletableFuture<Integer> pending = new CompletableFuture<>();
        AtomicInteger callbacks = new AtomicInteger();
        DelayedFuture<Integer> op =
                purgatory.tryCompleteElseWatch(100_000, List.of(pending), callbacks::incrementAndGet);

        assertThat(purgatory.engine().cancelAll(op)).containsExactly(op);

        assertThat(pending).isCancelled();
        assertThat(callbacks).hasValue(1);
        timer.advanceClock(100_000);
        assertThat(callbacks).hasValue(1);
    }

    @Test
    void constructor_byName_usesItsOwnTimer() {
        try (DelayedFuturePurgatory own = new DelayedFuturePurgatory("own-futures")) {
            List<CompletableFuture<Integer>> futures = List.of(CompletableFuture.completedFuture(1));
            own.tryCompleteElseWatch(1_000, futures, () -> result.set(sum(futures)));

            assertThat(result).hasValue(1);
            assertThat(own.name()).isEqualTo("own-futures");
        }
    }

    private static int sum(List<CompletableFuture<Integer>> futures) {
        int total = 0;
        for (CompletableFuture<Integer> f : futures) {
            total += f.getNow(0);
        }
        return total;
    }

    private static Throwable catchCause(CompletableFuture<?> future) {
        try {
            future.get();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        throw new AssertionError("future completed normally");
    }
}
