package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keyed waits under load, against a ledger, on the system timer. Worker threads await (one key or
 * several, with or without a predicate and a fallback, short or hour-long timeouts), complete and
 * fail keys, and cancel or complete each other's futures from outside, while the timer expires
 * the short waits; then the waits are closed. The ledger records each future, what the outside
 * call on it returned, every value handed over, and what the event calls returned. At the end:
 * each future answered exactly once, by an answer the ledger allows (an event value published on
 * one of its keys that its predicate accepts, an error on one of its keys, its fallback or a
 * timeout, or the outside answer iff the outside call said so); the counters agree with the
 * ledger; what the event calls returned plus the waits answered by retained events is exactly the
 * waits answered by events; nothing pending, watched or retained; the purgatory's invariants hold;
 * no library thread left. No timing is asserted: real time bounds only the waits.
 *
 * <p>The CI runs are short; the long runs are tagged {@code slow}: {@code mvn -B -ntp -pl purgatory -am
 * test -Pslow -Dtest=KeyedWaitsStressTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class KeyedWaitsStressTest {

    private static final int KEYS = 16;
    /** The value a future is completed with from outside; event values are positive, fallbacks negative. */
    private static final int OUTSIDE = Integer.MIN_VALUE;
    private static final long BOUND_SECONDS = ReliabilitySupport.BOUND_SECONDS;

    @Test
    void stress_awaitsEventsErrorsCancelsTimeoutsThenClose_everyFutureAnsweredOnceAsTheLedgerAllows()
            throws Exception {
        new Run("keyed-stress", false, 4, 3_000, 0x5EEDL).execute();
    }

    @Test
    void stress_withEarlyEventsRetainedAndEvicted_everyFutureAnsweredOnceAsTheLedgerAllows() throws Exception {
        new Run("keyed-stress-early", true, 4, 3_000, 0xEA21L).execute();
    }

    @Test
    @Tag("slow")
    void stress_longRuns_everyFutureAnsweredOnceAsTheLedgerAllows() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            new Run("keyed-soak-" + seed, false, 8, 50_000, seed).execute();
            new Run("keyed-soak-early-" + seed, true, 8, 50_000, seed).execute();
        }
    }

    /** The predicates a wait may have: none, or one that accepts about half or a quarter of the values. */
    enum Accept {
        ANY, EVEN, RARE;

        /** The wait's predicate; null for ANY (no predicate). */
        Predicate<Integer> predicate() {
            return this == ANY ? null : this::accepts;
        }

        boolean accepts(int value) {
            return switch (this) {
                case ANY -> true;
                case EVEN -> (value / KEYS) % 2 == 0;
                case RARE -> (value / KEYS) % 4 == 3;
            };
        }
    }

    /** What the one outside call on a future (if any) returned. */
    enum OutsideCall { NONE, CANCEL_TRUE, CANCEL_FALSE, COMPLETE_TRUE, COMPLETE_FALSE }

    /** An error handed over by completeExceptionally for a key (no stack trace: cheap). */
    static final class KeyError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int key;

        KeyError(int key) {
            super("error on key " + key, null, false, false);
            this.key = key;
        }
    }

    /** One wait in the ledger. */
    static final class Wait {
        final List<Integer> keys;
        final Accept accept;
        final boolean hasFallback;
        final int fallback;
        final AtomicInteger answers = new AtomicInteger();
        volatile OutsideCall outside = OutsideCall.NONE;
        CompletableFuture<Integer> future;
        CompletableFuture<Integer> counted;

        Wait(int id, List<Integer> keys, Accept accept, boolean hasFallback) {
            this.keys = keys;
            this.accept = accept;
            this.hasFallback = hasFallback;
            this.fallback = -1 - id;
        }

        @Override
        public String toString() {
            return "Wait[keys=" + keys + ", " + accept + (hasFallback ? ", fallback " + fallback : "") + ", outside "
                    + outside + ", " + future + "]";
        }
    }

    /** How a wait ended, by the ledger's reading of its future. */
    enum Ending { EVENT, ERROR, EXPIRED, CANCELLED }

    private static final class Run {
        private final String name;
        private final boolean retain;
        private final int threads;
        private final int opsPerThread;
        private final long seed;
        private final ConcurrentLinkedQueue<Wait> all = new ConcurrentLinkedQueue<>();
        /** Futures for the outside calls, newest last: the newest are the likeliest still pending. */
        private final ConcurrentLinkedDeque<Wait> targets = new ConcurrentLinkedDeque<>();
        private final Set<Integer> published = ConcurrentHashMap.newKeySet();
        private final AtomicInteger ids = new AtomicInteger();
        private final AtomicInteger sequence = new AtomicInteger();
        private final LongAdder eventCallsReturned = new LongAdder();

        Run(String name, boolean retain, int threads, int opsPerThread, long seed) {
            this.name = name;
            this.retain = retain;
            this.threads = threads;
            this.opsPerThread = opsPerThread;
            this.seed = seed;
        }

        void execute() throws Exception {
            KeyedWaitsBuilder builder = KeyedWaits.builder(name).shards(8);
            if (retain) {
                builder.retainEvents(Duration.ofMillis(50), KEYS / 2); // windows end and events are evicted
            }
            KeyedWaits<Integer, Integer> waits = builder.build();
            List<ReliabilitySupport.Work> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom rnd = new SplittableRandom(seed * 1_000 + t);
                work.add(() -> {
                    for (int i = 0; i < opsPerThread; i++) {
                        step(waits, rnd);
                    }
                });
            }
            ReliabilitySupport.runConcurrently(name, work);
            waits.close(); // expires what is still pending (policy EXPIRE)

            List<Wait> ledger = new ArrayList<>(all);
            CompletableFuture<?>[] counted = ledger.stream().map(w -> w.counted).toArray(CompletableFuture<?>[]::new);
            CompletableFuture.allOf(counted).handle((v, e) -> null).get(BOUND_SECONDS, TimeUnit.SECONDS);
            verify(waits, ledger);
            ReliabilitySupport.assertNoLibraryThreadLeft(name);
        }

        private void step(KeyedWaits<Integer, Integer> waits, SplittableRandom rnd) {
            int r = rnd.nextInt(100);
            if (r < 30) {
                submit(waits, rnd, List.of(rnd.nextInt(KEYS)));
            } else if (r < 45) {
                int first = rnd.nextInt(KEYS);
                int n = 2 + rnd.nextInt(2);
                List<Integer> keys = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    keys.add((first + i * (1 + rnd.nextInt(KEYS - 1))) % KEYS); // duplicates are one key
                }
                submit(waits, rnd, keys);
            } else if (r < 75) {
                int key = rnd.nextInt(KEYS);
                int value = key + KEYS * sequence.incrementAndGet();
                published.add(value); // before it is handed over
                eventCallsReturned.add(waits.complete(key, value));
            } else if (r < 80) {
                int key = rnd.nextInt(KEYS);
                eventCallsReturned.add(waits.completeExceptionally(key, new KeyError(key)));
            } else {
                Wait target = targets.pollLast(); // each future gets at most one outside call
                if (target != null) {
                    if (r < 92) {
                        target.outside = target.future.cancel(rnd.nextBoolean())
                                ? OutsideCall.CANCEL_TRUE : OutsideCall.CANCEL_FALSE;
                    } else {
                        target.outside = target.future.complete(OUTSIDE)
                                ? OutsideCall.COMPLETE_TRUE : OutsideCall.COMPLETE_FALSE;
                    }
                }
            }
        }

        private void submit(KeyedWaits<Integer, Integer> waits, SplittableRandom rnd, List<Integer> keys) {
            Accept accept = Accept.values()[rnd.nextInt(Accept.values().length)];
            Wait wait = new Wait(ids.incrementAndGet(), keys, accept, rnd.nextInt(3) == 0);
            KeyedWaits.Await<Integer, Integer> await = keys.size() == 1 ? waits.on(keys.get(0)) : waits.onAny(keys);
            if (accept != Accept.ANY) {
                await.until(accept.predicate());
            }
            if (wait.hasFallback) {
                await.orElse(wait.fallback);
            }
            long timeoutMs = rnd.nextInt(5) < 2 ? 1 + rnd.nextInt(15) : TimeUnit.HOURS.toMillis(1);
            wait.future = await.await(Duration.ofMillis(timeoutMs));
            wait.counted = wait.future.whenComplete((v, e) -> wait.answers.incrementAndGet());
            all.add(wait);
            targets.add(wait);
        }

        private void verify(KeyedWaits<Integer, Integer> waits, List<Wait> ledger) {
            long[] endings = new long[Ending.values().length];
            for (Wait wait : ledger) {
                assertThat(wait.answers).as("%s answered exactly once", wait).hasValue(1);
                endings[ending(wait).ordinal()]++;
            }
            PurgatoryStats stats = waits.stats();
            long events = endings[Ending.EVENT.ordinal()] + endings[Ending.ERROR.ordinal()];
            assertThat(stats.completed() + stats.completedAtOnce()).as("completed: %s", stats).isEqualTo(events);
            assertThat(stats.expired()).as("expired: %s", stats).isEqualTo(endings[Ending.EXPIRED.ordinal()]);
            assertThat(stats.cancelled()).as("cancelled: %s", stats).isEqualTo(endings[Ending.CANCELLED.ordinal()]);
            assertThat(stats.completed() + stats.completedAtOnce() + stats.expired() + stats.cancelled())
                    .as("every submitted wait settled once").isEqualTo(ledger.size());
            long retainedHits = retain ? waits.events().retention().hits() : 0;
            assertThat(eventCallsReturned.sum() + retainedHits)
                    .as("complete/completeExceptionally counts + retained hits = waits answered by events")
                    .isEqualTo(events);
            if (!retain) {
                assertThat(stats.completedAtOnce()).isZero();
            }
            assertThat(stats.callbackErrors()).isZero();
            assertThat(stats.pending()).isZero();
            assertThat(stats.watched()).isZero();
            assertThat(stats.keys()).isZero();
            assertThat(waits.retainedEvents()).isZero();
            waits.engine().checkInvariants();
            System.out.printf("%s: %,d waits: %,d by events, %,d by errors, %,d expired, %,d cancelled"
                            + " (%,d answered by retained events)%n", name, ledger.size(),
                    endings[Ending.EVENT.ordinal()], endings[Ending.ERROR.ordinal()],
                    endings[Ending.EXPIRED.ordinal()], endings[Ending.CANCELLED.ordinal()], retainedHits);
        }

        /** How {@code wait} ended, failing unless its answer is one the ledger allows. */
        private Ending ending(Wait wait) {
            CompletableFuture<Integer> future = wait.future;
            assertThat(future).as("%s", wait).isDone();
            OutsideCall outside = wait.outside;
            if (future.isCancelled()) {
                assertThat(outside).as("%s: cancelled iff its cancel said so", wait).isEqualTo(OutsideCall.CANCEL_TRUE);
                return Ending.CANCELLED;
            }
            assertThat(outside).as("%s: its cancel said it cancelled", wait).isNotEqualTo(OutsideCall.CANCEL_TRUE);
            Integer value;
            try {
                value = future.join();
            } catch (CompletionException e) {
                assertThat(outside).as("%s", wait).isNotEqualTo(OutsideCall.COMPLETE_TRUE);
                if (e.getCause() instanceof KeyError error) {
                    assertThat(wait.keys).as("%s: an error on one of its keys", wait).contains(error.key);
                    return Ending.ERROR;
                }
                assertThat(e.getCause()).as("%s", wait).isInstanceOf(TimeoutException.class);
                assertThat(wait.hasFallback).as("%s: a timeout only without a fallback", wait).isFalse();
                return Ending.EXPIRED;
            } catch (CancellationException e) {
                return fail("%s: cancelled yet not isCancelled", wait);
            }
            if (value == OUTSIDE) {
                assertThat(outside).as("%s: the outside value iff its complete said so", wait)
                        .isEqualTo(OutsideCall.COMPLETE_TRUE);
                return Ending.CANCELLED;
            }
            assertThat(outside).as("%s", wait).isNotEqualTo(OutsideCall.COMPLETE_TRUE);
            if (wait.hasFallback && value == wait.fallback) {
                return Ending.EXPIRED;
            }
            assertThat(value).as("%s: an event value", wait).isPositive();
            assertThat(published.contains(value)).as("%s: a value handed over", wait).isTrue();
            assertThat(wait.keys).as("%s: a value handed over on one of its keys", wait).contains(value % KEYS);
            assertThat(wait.accept.accepts(value)).as("%s: a value its predicate accepts: %d", wait, value).isTrue();
            return Ending.EVENT;
        }
    }
}
