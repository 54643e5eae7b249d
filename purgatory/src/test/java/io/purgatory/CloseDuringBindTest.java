package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} while a {@link MetricsRecorderFactory} on another thread is still creating its
 * recorder (a registry that blocks): the close answers every pending wait and returns within its
 * bound for work on other threads (promise 6: at most 10 s), and the recorder the factory hands
 * back later is closed and its bind refused.
 */
class CloseDuringBindTest {

    private static final long JOIN_SECONDS = 30;

    @Test
    void close_whileAFactoryOnAnotherThreadIsStillCreating_answersTheWaitsAndReturnsWithinItsBound()
            throws Exception {
        CountDownLatch creating = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CloseFromManyThreadsTest.CountingFactory counting = new CloseFromManyThreadsTest.CountingFactory();
        MetricsRecorderFactory blocking = source -> {
            creating.countDown();
            try {
                release.await(2 * JOIN_SECONDS, TimeUnit.SECONDS); // a registry that hangs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return counting.create(source);
        };
        KeyedWaits<String, String> waits = KeyedWaits.builder("bound-late").build();
        CompletableFuture<String> wait = waits.await("k", Duration.ofSeconds(60));
        AtomicReference<Throwable> bindOutcome = new AtomicReference<>();
        Thread binding = new Thread(() -> {
            try {
                waits.bindMetrics(blocking);
            } catch (Throwable e) {
                bindOutcome.set(e);
            }
        }, "binding");
        binding.start();
        assertThat(creating.await(JOIN_SECONDS, TimeUnit.SECONDS)).isTrue();
        Thread closing = new Thread(waits::close, "closing");
        closing.start();
        try {
            closing.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));

            assertThat(closing.isAlive()).as("close still blocked by the factory after " + JOIN_SECONDS + " s")
                    .isFalse();
            assertThat(wait).isDone();
        } finally {
            release.countDown();
            binding.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
            closing.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
        }
        assertThat(bindOutcome.get()).isInstanceOf(IllegalStateException.class);
        assertThat(counting.closed.get()).isEqualTo(counting.created.get());
        assertThat(waits.hasMetrics()).isFalse();
    }
}
