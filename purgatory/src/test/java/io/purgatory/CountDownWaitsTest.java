package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.Engine;
import io.purgatory.internal.Visit;
import io.purgatory.internal.Visitor;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The test of the engine's shape: a new kind of wait, a count-down latch by key (answered by the
 * N-th event on its key), written as one small facade on {@link Engine}, touching neither
 * {@link DelayedOperationPurgatory} nor {@link KeyedWaits}. It gets the engine's promises for free:
 * exactly-once answers, timeouts on the shared timer, close by policy, counters and the error
 * boundary.
 */
class CountDownWaitsTest {

    /** The facade a newcomer writes: a builder's settings, an engine, one operation class, one visitor. */
    static final class CountDownWaits<K> implements AutoCloseable {
        private final Engine engine;
        private final Visitor countDown = (op, ignored) -> ((Latch<?>) op).countDown();

        CountDownWaits(String name, ManualTimer timer) {
            EngineSettings settings = new EngineSettings(name);
            settings.timer(timer);
            this.engine = new Engine(settings.config(), () -> { });
        }

        /** A future that completes with the key once {@code count} events have arrived on it after this call. */
        CompletableFuture<K> await(K key, int count, Duration timeout) {
            Objects.requireNonNull(key, "key");
            Latch<K> latch = new Latch<>(key, count, Timer.toMs(Objects.requireNonNull(timeout, "timeout")));
            engine.submit(latch, key);
            return latch.future;
        }

        /** One event on {@code key}: counts down every latch on it; returns how many it released. */
        int countDown(K key) {
            return engine.visit(Objects.requireNonNull(key, "key"), Visit.ALL, 0L, null, countDown);
        }

        int pending() {
            return engine.counters().pending();
        }

        @Override
        public void close() {
            engine.close();
        }

        /** The operation: released by its N-th event, else expired. */
        private static final class Latch<K> extends DelayedOperation {
            final K key;
            final AtomicInteger left;
            final CompletableFuture<K> future = new CompletableFuture<>();

            Latch(K key, int count, long timeoutMs) {
                super(timeoutMs);
                this.key = key;
                this.left = new AtomicInteger(count);
            }

            boolean countDown() {
                return left.decrementAndGet() <= 0 && forceComplete();
            }

            @Override
            protected boolean tryComplete() {
                return left.get() <= 0 && forceComplete();
            }

            @Override
            protected void onComplete() {
                if (outcome() == Outcome.COMPLETED) {
                    future.complete(key);
                } else {
                    future.completeExceptionally(new TimeoutException("no " + left.get() + " more events on " + key));
                }
            }

            @Override
            protected void onExpiration() {
            }

            @Override
            protected void onCancel() {
                future.cancel(false);
            }
        }
    }

    private final ManualTimer timer = new ManualTimer();

    @Test
    void countDown_theNthEventOnTheKey_releasesTheLatchExactlyOnce() {
        try (CountDownWaits<String> waits = new CountDownWaits<>("count-down", timer)) {
            CompletableFuture<String> threeEvents = waits.await("k", 3, Duration.ofSeconds(10));

            assertThat(waits.countDown("k")).isZero();
            assertThat(waits.countDown("other")).isZero();
            assertThat(waits.countDown("k")).isZero();
            assertThat(waits.countDown("k")).isEqualTo(1);

            assertThat(threeEvents).isCompletedWithValue("k");
            assertThat(waits.countDown("k")).as("released once; nothing left on the key").isZero();
            assertThat(waits.pending()).isZero();
            waits.engine.checkInvariants();
        }
    }

    @Test
    void await_tooFewEventsBeforeTheTimeout_expiresOnTheTimer() {
        try (CountDownWaits<String> waits = new CountDownWaits<>("count-down", timer)) {
            CompletableFuture<String> twoEvents = waits.await("k", 2, Duration.ofMillis(100));
            waits.countDown("k");

            timer.advanceClock(100);

            assertThatThrownBy(twoEvents::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(TimeoutException.class);
            assertThat(waits.pending()).isZero();
        }
    }

    @Test
    void close_pendingLatches_areAnsweredByTheClosePolicy() {
        CountDownWaits<String> waits = new CountDownWaits<>("count-down", timer);
        CompletableFuture<String> pending = waits.await("k", 5, Duration.ofSeconds(10));

        waits.close();

        assertThat(pending).isCompletedExceptionally();
        assertThat(waits.pending()).isZero();
    }
}
