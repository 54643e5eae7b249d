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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyedWaits#close()} called from several threads at once, racing awaits, events, metrics
 * binds and the real reaper (promises 3 and 6 of docs/reliability.md): each close returns with
 * every wait it could see answered; every accepted wait is answered once and counted; a bind
 * either lands before the close, which then closes its recorder once, or is refused, leaving no
 * recorder open; nothing stays retained, remembered or on the timer. Also one member of a shared
 * runtime closed from several threads while the others keep answering and expiring.
 */
class CloseFromManyThreadsTest {

    private static final int ROUNDS = 30;
    private static final long JOIN_SECONDS = 60;

    /** Counts the recorders it creates and their closes; a close twice, and a record after it, are counted too. */
    static final class CountingFactory implements MetricsRecorderFactory {
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();
        final AtomicInteger closedTwice = new AtomicInteger();
        final AtomicInteger recordedAfterClose = new AtomicInteger();

        @Override
        public MetricsRecorder create(MetricsSource source) {
            created.incrementAndGet();
            return new MetricsRecorder() {
                private final AtomicInteger closes = new AtomicInteger();

                @Override
                public void recordSettled(Outcome outcome, long watchedNanos) {
                    if (closes.get() > 0) {
                        recordedAfterClose.incrementAndGet();
                    }
                }

                @Override
                public void recordLateness(long latenessNanos) {
                    recordSettled(Outcome.EXPIRED, latenessNanos);
                }

                @Override
                public void close() {
                    if (closes.incrementAndGet() > 1) {
                        closedTwice.incrementAndGet();
                    }
                    closed.incrementAndGet();
                }
            };
        }
    }

    private interface Work {
        void run(int index) throws Exception;
    }

    /** Runs {@code count} threads of {@code work} from one start line; returns the failures. */
    private static List<Throwable> race(int count, Work work) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    work.run(index);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "racer-" + i);
            t.start();
            threads.add(t);
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
            assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
        }
        return new ArrayList<>(failures);
    }

    @Test
    void close_fromFourThreadsRacingAwaitsEventsAndBinds_answersEveryWaitOnceAndClosesEveryRecorderOnce()
            throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            CountingFactory factory = new CountingFactory();
            KeyedWaits<String, String> waits = KeyedWaits.builder("closing-" + round)
                    .retainEvents(Duration.ofSeconds(1), 8).lateEvents(Duration.ofSeconds(1), 8).build();
            Queue<CompletableFuture<String>> accepted = new ConcurrentLinkedQueue<>();
            AtomicInteger refusedAwaits = new AtomicInteger();
            AtomicInteger refusedBinds = new AtomicInteger();
            Queue<CompletableFuture<String>> notDoneAfterClose = new ConcurrentLinkedQueue<>();
            List<Throwable> failures = race(12, i -> {
                if (i < 4) { // awaits, some timing out at once on the real timer
                    for (int n = 0; n < 200; n++) {
                        CompletableFuture<String> f = waits.await("k" + (n % 16),
                                Duration.ofMillis(n % 3 == 0 ? 1 : 60_000));
                        if (KeyedWaits.isWait(f)) {
                            accepted.add(f);
                        } else if (f.handle((v, e) -> e).join() instanceof IllegalStateException) { // closed
                            refusedAwaits.incrementAndGet();
                        } else {
                            throw new AssertionError("refused other than as closed: " + f);
                        }
                    }
                } else if (i < 6) { // events
                    for (int n = 0; n < 200; n++) {
                        waits.complete("k" + (n % 16), "v" + n);
                    }
                } else if (i < 8) { // binds, once each
                    try {
                        waits.bindMetrics(factory);
                    } catch (IllegalStateException boundOrClosed) {
                        refusedBinds.incrementAndGet();
                    }
                } else { // closes
                    Thread.yield();
                    waits.close();
                    for (CompletableFuture<String> f : accepted) {
                        if (!f.isDone()) { // answered by an event or an expiry still under way, not by the close
                            notDoneAfterClose.add(f);
                        }
                    }
                }
            });

            assertThat(failures).as("round " + round).isEmpty();
            for (CompletableFuture<String> f : notDoneAfterClose) {
                Throwable error = f.handle((v, e) -> e).get(JOIN_SECONDS, TimeUnit.SECONDS);
                assertThat(error instanceof WaitTimeoutException timeout && timeout.closed())
                        .as("a wait the close answered, not done when a close returned, round " + round).isFalse();
            }
            PurgatoryStats stats = waits.stats();
            assertThat(stats.pending()).isZero();
            assertThat(stats.completed() + stats.completedAtOnce() + stats.expired() + stats.cancelled())
                    .as("settles, round " + round).isEqualTo(accepted.size());
            assertThat(accepted.size() + refusedAwaits.get()).isEqualTo(800);
            assertThat(factory.created.get()).as("a recorder per bind that reached the factory").isLessThanOrEqualTo(1);
            assertThat(factory.closed.get()).as("every recorder created is closed, round " + round)
                    .isEqualTo(factory.created.get());
            assertThat(factory.closedTwice.get()).isZero(); // records after close: RecorderAfterCloseTest
            assertThat(waits.hasMetrics()).isFalse();
            assertThat(waits.retainedEvents()).isZero();
            assertThat(waits.events().ends().size()).isZero();
            assertThat(EngineInternals.timer(waits.engine().runtime()).size()).isZero();
            waits.engine().checkInvariants();
        }
    }

    @Test
    void close_oneMemberOfASharedRuntimeFromFourThreads_theOthersKeepAnsweringAndExpiring() throws Exception {
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("shared").build()) {
            for (int round = 0; round < 10; round++) {
                KeyedWaits<String, String> closing = KeyedWaits.builder("closing-" + round)
                        .runtime(runtime).retainEvents(Duration.ofSeconds(1), 8).build();
                KeyedWaits<String, String> staying = KeyedWaits.builder("staying-" + round)
                        .runtime(runtime).retainEvents(Duration.ofSeconds(1), 8).build();
                Queue<CompletableFuture<String>> closingWaits = new ConcurrentLinkedQueue<>();
                Queue<CompletableFuture<String>> stayingWaits = new ConcurrentLinkedQueue<>();
                List<Throwable> failures = race(8, i -> {
                    if (i < 2) {
                        for (int n = 0; n < 200; n++) {
                            closingWaits.add(closing.await("k" + (n % 8), Duration.ofSeconds(60))); // or refused
                            stayingWaits.add(staying.await("k" + (n % 8), Duration.ofMillis(n % 2 == 0 ? 1 : 60_000)));
                        }
                    } else if (i < 4) {
                        for (int n = 0; n < 200; n++) {
                            closing.complete("k" + (n % 8), "v");
                            staying.complete("k" + (n % 8), "v");
                        }
                    } else {
                        closing.close();
                    }
                });
                assertThat(failures).isEmpty();
                assertThat(closingWaits).allMatch(CompletableFuture::isDone);
                assertThat(closing.pending()).isZero();
                assertThat(closing.retainedEvents()).isZero();

                for (int k = 0; k < 8; k++) { // the other member still answers every wait on its keys
                    staying.complete("k" + k, "last");
                }
                CompletableFuture<String> expiring = staying.await("fresh", Duration.ofMillis(1));
                CompletableFuture.allOf(stayingWaits.toArray(new CompletableFuture<?>[0]))
                        .exceptionally(e -> null).get(JOIN_SECONDS, TimeUnit.SECONDS);
                assertThat(expiring.handle((v, e) -> e).get(JOIN_SECONDS, TimeUnit.SECONDS))
                        .as("the other member's reaper still expires its waits")
                        .isInstanceOf(WaitTimeoutException.class);
                assertThat(staying.isClosed()).isFalse();
                staying.close();
            }
        }
    }

    @Test
    void close_fromCallbacksOfAnotherPurgatoryOnFourThreadsAtOnce_closesTheRecorderOnceAndAnswersEveryWait()
            throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            CountingFactory factory = new CountingFactory();
            KeyedWaits<String, String> waits = KeyedWaits.builder("closed-" + round).metrics(factory)
                    .retainEvents(Duration.ofSeconds(1), 8).build();
            KeyedWaits<String, String> other = KeyedWaits.builder("other-" + round).build();
            List<CompletableFuture<String>> accepted = new ArrayList<>();
            for (int n = 0; n < 2_000; n++) {
                accepted.add(waits.await("k" + (n % 64), Duration.ofSeconds(60)));
            }
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (int i = 0; i < 4; i++) { // a close inside a callback of the other waits: it does not wait (N5)
                closes.add(other.await("c" + i, Duration.ofSeconds(60)).thenRun(waits::close));
            }
            List<Throwable> failures = race(5, i -> {
                if (i < 4) {
                    other.complete("c" + i, "go");
                } else {
                    waits.close();
                }
            });

            assertThat(failures).as("round " + round).isEmpty();
            for (CompletableFuture<Void> close : closes) {
                close.get(JOIN_SECONDS, TimeUnit.SECONDS);
            }
            assertThat(accepted).allMatch(CompletableFuture::isDone);
            PurgatoryStats stats = waits.stats();
            assertThat(stats.expired() + stats.cancelled() + stats.completed()).isEqualTo(accepted.size());
            assertThat(factory.created.get()).isOne();
            assertThat(factory.closed.get()).as("the recorder closed once, round " + round).isOne();
            assertThat(factory.closedTwice.get()).as("round " + round).isZero(); // records: RecorderAfterCloseTest
            other.close();
        }
    }
}
