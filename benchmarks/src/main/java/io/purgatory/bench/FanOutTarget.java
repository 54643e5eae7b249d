package io.purgatory.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the fan-out workload drives: many waits on one hot key, answered by one call, while another
 * thread waits on and answers other keys, one at a time. Each wait on the hot key counts its
 * answer in {@link #answered()}, as a waiter would do something with it. Two kinds: a purgatory
 * ({@code checkAndComplete} answers the hot key's operations) and keyed waits ({@code complete}
 * answers its waits).
 */
interface FanOutTarget extends AutoCloseable {

    /** The keys other than the hot one that the other thread cycles through: more than any purgatory's shards. */
    int OTHER_KEYS = 4096;
    /** Nothing times out during a run. */
    long TIMEOUT_MS = 600_000;

    /** Registers one more wait on the hot key, answered by {@link #answerHot()}. */
    void waitOnHot();

    /** The one call that answers every wait on the hot key; returns what it says it answered. */
    int answerHot();

    /** The hot key's waits answered so far (each counts itself). */
    long answered();

    /**
     * Waits on other key {@code j} (0 to {@link #OTHER_KEYS} - 1) and answers it, one thread; true
     * iff the wait was answered by then.
     */
    boolean roundTrip(int j);

    @Override
    void close();

    /** A purgatory of {@code impl}: operations watched on one key, completed by checkAndComplete(key). */
    static FanOutTarget purgatory(Impl impl, String name) {
        return new OfPurgatory(PurgatoryUnderTest.create(impl, name));
    }

    /** Keyed waits named by {@code waitsId} ({@link KeyedWaitsUnderTest#create}): futures answered by complete(key). */
    static FanOutTarget keyedWaits(String waitsId, String name) {
        return new OfKeyedWaits(KeyedWaitsUnderTest.create(waitsId, name));
    }

    /** Operations on a purgatory: each hot one completes once the hot key is released. */
    final class OfPurgatory implements FanOutTarget {
        private final PurgatoryUnderTest purgatory;
        private final BenchKey hot;
        private final BenchKey[] others;
        private final LongAdder answered = new LongAdder();
        private final Release release = new Release();

        OfPurgatory(PurgatoryUnderTest purgatory) {
            this.purgatory = purgatory;
            BenchKey[] keys = BenchKey.range(OTHER_KEYS + 1);
            this.hot = keys[0];
            this.others = java.util.Arrays.copyOfRange(keys, 1, keys.length);
        }

        @Override
        public void waitOnHot() {
            purgatory.tryCompleteElseWatch(purgatory.newOperation(new HotBody(release, answered), TIMEOUT_MS),
                    hot.asList());
        }

        @Override
        public int answerHot() {
            release.released = true;
            return purgatory.checkAndComplete(hot);
        }

        @Override
        public long answered() {
            return answered.sum();
        }

        @Override
        public boolean roundTrip(int j) {
            Release ready = new Release();
            Completable op = purgatory.newOperation(new HotBody(ready, null), TIMEOUT_MS);
            purgatory.tryCompleteElseWatch(op, others[j].asList());
            ready.released = true;
            purgatory.checkAndComplete(others[j]);
            return op.isCompleted();
        }

        @Override
        public void close() {
            purgatory.close();
        }
    }

    /** Futures of keyed waits: each hot one counts its answer in a dependent stage. */
    final class OfKeyedWaits implements FanOutTarget {
        private static final Long HOT = -1L;
        private final KeyedWaitsUnderTest<Long, Long> waits;
        private final Long[] others = new Long[OTHER_KEYS];
        private final LongAdder answered = new LongAdder();
        private final Duration timeout = Duration.ofMillis(TIMEOUT_MS);

        OfKeyedWaits(KeyedWaitsUnderTest<Long, Long> waits) {
            this.waits = waits;
            for (int j = 0; j < OTHER_KEYS; j++) {
                others[j] = (long) j; // boxed once: a key is the caller's object
            }
        }

        @Override
        public void waitOnHot() {
            CompletableFuture<Void> unused = waits.await(HOT, timeout).thenRun(answered::increment);
        }

        @Override
        public int answerHot() {
            return waits.complete(HOT, 1L);
        }

        @Override
        public long answered() {
            return answered.sum();
        }

        @Override
        public boolean roundTrip(int j) {
            CompletableFuture<Long> wait = waits.await(others[j], timeout);
            waits.complete(others[j], 2L);
            return wait.isDone();
        }

        @Override
        public void close() {
            waits.close();
        }
    }

    /** Whether a key's operations may complete; written before the check that reads it. */
    final class Release {
        volatile boolean released;
    }

    /** Completes once released; counts its completion, if given a counter. */
    final class HotBody implements OpBody {
        private final Release release;
        private final LongAdder answered;

        HotBody(Release release, LongAdder answered) {
            this.release = release;
            this.answered = answered;
        }

        @Override
        public boolean canComplete() {
            return release.released;
        }

        @Override
        public void completed() {
            if (answered != null) {
                answered.increment();
            }
        }
    }
}
