package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Early events ({@link KeyedWaitsBuilder#retainEvents}) with windows of 1-2 ms and room for two
 * keys, on a {@link ManualTimer} advanced by a racing thread, while four threads complete the same
 * four keys and two register waits on them (EventRetention X1, X3, X6; KeyedEvents X5): every
 * event, each with a value of its own, answers a wait (when handed over or from the retention)
 * or is told unanswered exactly once, never both; once every window has ended nothing is
 * retained, and after close nothing is left on the timer.
 */
class EarlyEventAccountingRaceTest {

    private static final long JOIN_SECONDS = 60;

    @Test
    void complete_sameKeysFromFourThreadsWithTinyWindowsAndARacingClock_eachEventAnswersOrIsToldOnce()
            throws Exception {
        for (int round = 0; round < 20; round++) {
            ManualTimer timer = new ManualTimer();
            Map<String, Integer> told = new ConcurrentHashMap<>();
            KeyedWaits<String, String> waits = KeyedWaits.builder("tiny-" + round).timer(timer)
                    .retainEvents(Duration.ofMillis(1 + round % 2), 2)
                    .unansweredEvents((p, k, v, kind) -> told.merge((String) v, 1, Integer::sum)).build();
            Set<String> answeredAtHandOver = ConcurrentHashMap.newKeySet();
            Queue<CompletableFuture<String>> futures = new ConcurrentLinkedQueue<>();
            AtomicInteger working = new AtomicInteger(6);
            CountDownLatch start = new CountDownLatch(1);
            Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 7; t++) {
                int index = t;
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        if (index < 4) {
                            for (int n = 0; n < 300; n++) {
                                String value = index + ":" + n;
                                if (waits.complete("k" + (n % 4), value) > 0) {
                                    answeredAtHandOver.add(value);
                                }
                            }
                            working.decrementAndGet();
                        } else if (index < 6) {
                            for (int n = 0; n < 300; n++) {
                                futures.add(waits.await("k" + (n % 4), Duration.ofMinutes(10)));
                            }
                            working.decrementAndGet();
                        } else {
                            while (working.get() > 0) {
                                timer.advanceClock(1);
                                Thread.yield();
                            }
                        }
                    } catch (Throwable e) {
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
            timer.advanceClock(10); // every window ends

            Set<String> answeredLater = new HashSet<>();
            for (CompletableFuture<String> f : futures) {
                if (f.isDone()) {
                    answeredLater.add(f.join());
                }
            }
            assertThat(told.values()).as("each event told at most once, round " + round).allMatch(n -> n == 1);
            Set<String> answered = new HashSet<>(answeredAtHandOver);
            answered.addAll(answeredLater);
            Set<String> toldAndAnswered = new HashSet<>(told.keySet());
            toldAndAnswered.retainAll(answered);
            assertThat(toldAndAnswered).as("told yet answered a wait, round " + round).isEmpty();
            assertThat(told.size() + answered.size()).as("every event answered or told, round " + round)
                    .isEqualTo(4 * 300);
            assertThat(waits.retainedEvents()).isZero();
            assertThat(waits.events().unanswered()).isEqualTo(told.size());
            waits.close();
            assertThat(timer.size()).as("round " + round).isZero();
            timer.close();
        }
    }
}
