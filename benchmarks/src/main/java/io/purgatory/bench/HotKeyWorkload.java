package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Workload 8, a hot key: {@value #PENDING} operations pending on one key (a hot partition's
 * acks=all produces), each waiting for the key's position (the high watermark) to pass its own
 * offset. A producer thread keeps the key at {@value #PENDING} pending; an acker thread, whenever
 * the key is full, moves the position by one and checks the key, which satisfies exactly one
 * operation. Kafka has only the try-all check: each check tries every pending operation. Ours
 * watches each operation at its offset and checks the key at its new position, so a check tries
 * only what it satisfied ({@code tryCompleteElseWatch(op, key, position)}).
 * Measures completions per second, and tries per completion, over a fixed window. The two threads
 * hand over by yielding, not parking: a park's wake-up latency would be all that is measured.
 */
final class HotKeyWorkload extends Workload {

    static final String TITLE = "8 hot key";
    static final Metric RATE = new Metric(TITLE, "completions/s", Bar.atLeastTimesKafka(20));
    static final Metric TRIES = new Metric(TITLE, "tries/completion", Bar.NONE);
    static final int PENDING = 10_000;
    private static final long TIMEOUT_MS = 60_000;

    HotKeyWorkload() {
        super("hotkey", TITLE, List.of(Impl.OURS, Impl.KAFKA));
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        BenchKey key = BenchKey.range(1)[0];
        AtomicLong position = new AtomicLong();
        AtomicLong submitted = new AtomicLong();
        LongAdder completed = new LongAdder();
        LongAdder tries = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, "hotkey-" + impl.id())) {
            Thread producer = Threads.start("hotkey-producer", () -> {
                while (!stop.get()) {
                    long n = submitted.get();
                    if (n - completed.sum() >= PENDING) {
                        Thread.yield(); // the key is full: the acker completes one
                        continue;
                    }
                    long offset = n + 1; // operation n waits for the position to reach n + 1
                    submitted.setRelease(offset); // the producer is its only writer
                    Completable op = purgatory.newOperation(new AwaitPosition(position, offset, completed, tries),
                            TIMEOUT_MS);
                    purgatory.tryCompleteElseWatchAt(op, key, offset);
                }
            });
            Thread acker = Threads.start("hotkey-acker", () -> {
                while (!stop.get()) {
                    if (submitted.get() - position.get() < PENDING) {
                        Thread.yield(); // the producer refills the key first: every check sees it full
                        continue;
                    }
                    purgatory.checkAndComplete(key, position.incrementAndGet());
                }
            });
            while (submitted.get() < PENDING) { // the first fill is not measured
                Threads.sleepMillis(10);
            }
            Threads.sleepMillis(sizes.acksMillis() / 5); // ramp-up
            long c0 = completed.sum();
            long tries0 = tries.sum();
            long t0 = System.nanoTime();
            Threads.sleepMillis(sizes.acksMillis());
            long c1 = completed.sum();
            long tries1 = tries.sum();
            long t1 = System.nanoTime();
            stop.set(true);
            Threads.joinAll(producer, acker);
            long n = c1 - c0;
            recorder.record(RATE, n * 1e9 / (t1 - t0));
            recorder.record(TRIES, n == 0 ? Double.NaN : (double) (tries1 - tries0) / n);
            log.printf("    %s: %,d completions in %d ms, %,d pending at the end%n", impl.id(), n,
                    (t1 - t0) / 1_000_000, purgatory.numDelayed());
        }
    }

    /** Completes once the key's position reached its offset; counts its tries. */
    private static final class AwaitPosition implements OpBody {
        private final AtomicLong position;
        private final long offset;
        private final LongAdder completed;
        private final LongAdder tries;

        AwaitPosition(AtomicLong position, long offset, LongAdder completed, LongAdder tries) {
            this.position = position;
            this.offset = offset;
            this.completed = completed;
            this.tries = tries;
        }

        @Override
        public boolean canComplete() {
            tries.increment();
            return position.get() >= offset;
        }

        @Override
        public void completed() {
            completed.increment();
        }
    }
}
