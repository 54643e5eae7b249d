package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Early-event retention under races: no event is lost inside its window (R2), and nothing is
 * retained, nor left on the timer, after it (R1).
 *
 * <p>Inside the window: for each of N keys, one thread hands over the key's event while another
 * awaits the key at the same moment (a barrier per round, then a random skew of a few hundred
 * spins on one side), with a window and a wait timeout longer than the test. Every wait must end
 * with the event's value, and it must be done when both calls have returned: whichever way
 * answers it (the event's visit, the submission's first try or its try after the watch) completes
 * it before its call returns.
 *
 * <p>After the window, on a {@link ManualTimer}: threads hand over events on shared keys (newer
 * events replace older ones, the oldest are evicted) while another thread advances the clock;
 * in quiescence each retained event has exactly one expiry on the timer and a wait gets at once the
 * key's last event or nothing; once the window has passed, nothing is retained and the timer is
 * empty. The long runs are tagged {@code slow}.
 */
class KeyedWaitsRetentionStressTest {

    private static final long HOUR_MS = TimeUnit.HOURS.toMillis(1);
    private static final int MAX_SKEW = 400;

    @Test
    void stress_awaitAndCompleteOfEachKeyAtTheSameMoment_everyWaitEndsWithTheValue() throws Exception {
        noEventLostInsideTheWindow(4_000, 0x5EEDL);
    }

    @Test
    @Tag("slow")
    void stress_longRun_awaitAndCompleteOfEachKeyAtTheSameMoment_everyWaitEndsWithTheValue() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            noEventLostInsideTheWindow(50_000, seed);
        }
    }

    @Test
    void stress_eventsRacingTheClock_nothingRetainedNorOnTheTimerAfterTheWindow() throws Exception {
        nothingRetainedAfterTheWindow(3, 5_000, 0xA1L);
    }

    @Test
    @Tag("slow")
    void stress_longRun_eventsRacingTheClock_nothingRetainedNorOnTheTimerAfterTheWindow() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            nothingRetainedAfterTheWindow(3, 100_000, seed);
        }
    }

    private static void noEventLostInsideTheWindow(int keys, long seed) throws Exception {
        try (KeyedWaits<String, Integer> waits = KeyedWaits.builder("retention-race").shards(16)
                .retainEvents(Duration.ofMillis(HOUR_MS), keys).build()) {
            List<CompletableFuture<Integer>> futures = new ArrayList<>(keys);
            for (int i = 0; i < keys; i++) {
                futures.add(null);
            }
            LongAdder visitsAnswered = new LongAdder();
            CyclicBarrier sameMoment = new CyclicBarrier(2);
            int[] skews = skews(keys, seed);
            List<ReliabilitySupport.Work> work = List.of(
                    () -> {
                        for (int i = 0; i < keys; i++) {
                            sameMoment.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
                            spin(-skews[i]);
                            futures.set(i, submit(waits, i));
                        }
                    },
                    () -> {
                        for (int i = 0; i < keys; i++) {
                            sameMoment.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
                            spin(skews[i]);
                            visitsAnswered.add(waits.complete("key-" + i, i));
                        }
                    });
            ReliabilitySupport.runConcurrently("retention-race", work);

            for (int i = 0; i < keys; i++) {
                assertThat(futures.get(i)).as("the wait on key-%d, answered by its call's return", i)
                        .isCompletedWithValue(i);
            }
            PurgatoryStats stats = waits.stats();
            assertThat(stats.completed() + stats.completedAtOnce()).isEqualTo(keys);
            assertThat(visitsAnswered.sum() + waits.events().retention().hits())
                    .as("answered by the event's visit, else by a retained event").isEqualTo(keys);
            assertThat(stats.expired() + stats.cancelled()).isZero();
            assertThat(stats.pending()).isZero();
            assertThat(stats.watched()).isZero();
            assertThat(waits.retainedEvents()).as("every event still in its window").isEqualTo(keys);
            assertThat(waits.events().retention().evicted()).isZero();
            waits.engine().checkInvariants();
            System.out.printf("retention-race: %,d keys: %,d answered by the event's visit, %,d by a retained event"
                    + " (%,d at once)%n", keys, visitsAnswered.sum(), waits.events().retention().hits(),
                    stats.completedAtOnce());
        }
    }

    /**
     * How much later than the other thread each round's caller starts, in spins: positive delays
     * the event, negative the wait. The barrier alone releases both at nearly the same moment
     * each round; the skews sweep the offsets around it, so every interleaving of the two calls
     * comes up (no sleep, no timing assertion).
     */
    private static int[] skews(int rounds, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] skews = new int[rounds];
        for (int i = 0; i < rounds; i++) {
            skews[i] = rnd.nextInt(-MAX_SKEW, MAX_SKEW + 1);
        }
        return skews;
    }

    private static void spin(int spins) {
        for (int i = 0; i < spins; i++) {
            Thread.onSpinWait();
        }
    }

    /** Awaits key {@code i}: alternately alone, with another key nobody completes, and with a predicate. */
    private static CompletableFuture<Integer> submit(KeyedWaits<String, Integer> waits, int i) {
        Duration hour = Duration.ofMillis(HOUR_MS);
        return switch (i % 3) {
            case 0 -> waits.await("key-" + i, hour);
            case 1 -> waits.onAny(List.of("never-" + i, "key-" + i)).await(hour);
            default -> waits.await("key-" + i, hour, v -> v == i);
        };
    }

    private static void nothingRetainedAfterTheWindow(int threads, int eventsPerThread, long seed) throws Exception {
        int keys = 64;
        int maxEntries = 16;
        long windowMs = 20;
        ManualTimer timer = new ManualTimer();
        try (KeyedWaits<Integer, Integer> waits = KeyedWaits.builder("retention-window").timer(timer).shards(8)
                .retainEvents(Duration.ofMillis(windowMs), maxEntries).build()) {
            AtomicIntegerArray last = new AtomicIntegerArray(keys); // each key is handed over by one thread only
            AtomicInteger handedOver = new AtomicInteger();
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger left = new AtomicInteger(threads);
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                SplittableRandom rnd = new SplittableRandom(seed * 100 + t);
                work.add(() -> {
                    try {
                        for (int i = 1; i <= eventsPerThread; i++) {
                            int key = thread + threads * rnd.nextInt(keys / threads);
                            int value = i * threads + thread; // positive, never repeated
                            last.set(key, value);
                            assertThat(waits.complete(key, value)).as("no wait to answer").isZero();
                            handedOver.incrementAndGet();
                        }
                    } finally {
                        if (left.decrementAndGet() == 0) {
                            done.set(true);
                        }
                    }
                });
            }
            work.add(() -> { // the clock races the events: 1 ms per 25 events handed over
                long advancedAt = 0;
                while (!done.get()) {
                    int now = handedOver.get();
                    if (now - advancedAt >= 25) {
                        advancedAt = now;
                        timer.advanceClock(1);
                    } else {
                        Thread.onSpinWait();
                    }
                }
            });
            ReliabilitySupport.runConcurrently("retention-window", work);

            int retained = waits.retainedEvents();
            assertThat(retained).isBetween(1, maxEntries);
            assertThat(timer.size()).as("(R1) one expiry per retained event, none for the dropped ones")
                    .isEqualTo(retained);
            int answered = 0;
            for (int key = 0; key < keys; key++) {
                int answer = retainedAnswer(waits, key);
                if (answer != 0) {
                    assertThat(answer).as("key %d: its last event, never an older one", key).isEqualTo(last.get(key));
                    answered++;
                }
            }
            assertThat(answered).as("a wait gets at once each retained event").isEqualTo(retained);

            timer.advanceClock(windowMs);

            assertThat(waits.retainedEvents()).as("nothing retained after the window").isZero();
            assertThat(timer.size()).as("nothing left on the timer for them").isZero();
            for (int key = 0; key < keys; key++) {
                assertThat(retainedAnswer(waits, key)).as("key %d after the window", key).isZero();
            }
            PurgatoryStats stats = waits.stats();
            assertThat(stats.pending()).isZero();
            assertThat(stats.completed()).isZero();
            assertThat(stats.completedAtOnce() + stats.expired()).isEqualTo(2L * keys);
            waits.engine().checkInvariants();
            System.out.printf("retention-window: %,d events, %,d evicted, %d retained at the end of the run%n",
                    handedOver.get(), waits.events().retention().evicted(), retained);
        }
    }

    /** A wait of zero timeout on {@code key}: the value of its retained event, or 0 if it timed out at once. */
    private static int retainedAnswer(KeyedWaits<Integer, Integer> waits, int key) {
        CompletableFuture<Integer> wait = waits.await(key, Duration.ZERO);
        assertThat(wait).isDone();
        try {
            return wait.join();
        } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(TimeoutException.class);
            return 0;
        }
    }
}
