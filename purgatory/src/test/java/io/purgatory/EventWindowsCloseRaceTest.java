package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.internal.EngineInternals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The windows of early events and of late-event memory on a shared runtime's real timer, 1 ms
 * long, racing the waits' {@code close()} (EventRetention X1, X4, X6): events
 * completed, waits timing out and the close on separate threads; once the close returned and
 * the racers stopped, nothing of the waits is retained, remembered or left on the runtime's
 * timer, which goes on for the other members, and every wait is answered.
 */
class EventWindowsCloseRaceTest {

    private static final long JOIN_SECONDS = 60;

    @Test
    void close_racingEventsAndTimeoutsWithOneMillisecondWindowsOnASharedTimer_leavesNothingOnTheTimer()
            throws Exception {
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("windows").build()) {
            for (int round = 0; round < 30; round++) {
                KeyedWaits<String, String> waits = KeyedWaits.builder("windows-" + round).runtime(runtime)
                        .retainEvents(Duration.ofMillis(1), 4).lateEvents(Duration.ofMillis(1), 4).build();
                Queue<CompletableFuture<String>> futures = new ConcurrentLinkedQueue<>();
                Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
                CountDownLatch start = new CountDownLatch(1);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 5; t++) {
                    int index = t;
                    threads.add(new Thread(() -> {
                        try {
                            start.await();
                            for (int n = 0; n < 300; n++) {
                                if (index < 2) {
                                    waits.complete("k" + (n % 8), "v" + n);
                                } else if (index < 4) {
                                    futures.add(waits.await("k" + (n % 8), Duration.ofMillis(1)));
                                } else if (n == 150) {
                                    waits.close();
                                }
                            }
                        } catch (Throwable e) { // an await after the close returns a failed future
                            failures.add(e);
                        }
                    }));
                }
                threads.forEach(Thread::start);
                start.countDown();
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
                    assertThat(t.isAlive()).isFalse();
                }

                assertThat(failures).isEmpty();
                assertThat(futures).allMatch(CompletableFuture::isDone);
                assertThat(waits.retainedEvents()).isZero();
                assertThat(waits.events().ends().size()).isZero();
                assertThat(waits.pending()).isZero();
                assertThat(EngineInternals.timer(runtime.core()).size())
                        .as("entries left on the shared timer, round " + round).isZero();
            }
            KeyedWaits<String, String> staying = KeyedWaits.builder("staying").runtime(runtime).build();
            CompletableFuture<String> expiring = staying.await("k", Duration.ofMillis(1));
            assertThat(expiring.handle((v, e) -> e).get(JOIN_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(WaitTimeoutException.class);
        }
    }
}
