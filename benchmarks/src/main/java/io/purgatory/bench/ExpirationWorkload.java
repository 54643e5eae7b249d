package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;

/**
 * Workload 2, expiration through the purgatory: one thread submits operations that never complete,
 * each watched on one key of 1000, with timeouts uniform in 100..1100 ms, as fast as it can.
 * Measures the insert rate and each operation's lateness (its {@code onExpiration} time minus the
 * deadline taken when it was added), and counts operations lost, fired early, or fired twice.
 */
final class ExpirationWorkload extends Workload {

    static final String TITLE = "2 expiration (purgatory)";
    static final Metric INSERT_RATE = new Metric(TITLE, "inserts/s", Bar.atLeastTimesKafka(3));
    static final LatenessTracker.Metrics METRICS = LatenessTracker.Metrics.of(TITLE, true);
    static final long GRACE_MS = 5_000;

    ExpirationWorkload() {
        super("expiration", TITLE, List.of(Impl.OURS, Impl.KAFKA));
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        burst(impl, sizes.expirationOps(), sizes.expirationMinMs(), sizes.expirationMaxMs(), sizes.expirationKeys(),
                recorder, log);
    }

    /** One run: n operations, timeouts uniform in minMs..maxMs, on keyCount keys (also the cold workload's child). */
    static void burst(Impl impl, int n, int minMs, int maxMs, int keyCount, Results.Recorder recorder,
                      PrintStream log) {
        LatenessTracker tracker = new LatenessTracker(n, minMs, maxMs);
        BenchKey[] keys = BenchKey.range(keyCount);
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, "expiration-" + impl.id())) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                tracker.adding(i);
                purgatory.tryCompleteElseWatch(purgatory.newOperation(new ExpiryBody(tracker, i), tracker.delaysMs[i]),
                        keys[i % keys.length].asList());
            }
            long t1 = System.nanoTime();
            recorder.record(INSERT_RATE, n * 1e9 / (t1 - t0));
            int fired = tracker.awaitAll(maxMs + GRACE_MS);
            tracker.report(METRICS, recorder);
            log.printf("    %s: %,d inserted in %d ms, %,d expired%n", impl.id(), n, (t1 - t0) / 1_000_000, fired);
        }
    }

    /** Never completes; records its expiry. */
    static final class ExpiryBody implements OpBody {
        private final LatenessTracker tracker;
        private final int index;
        private final long deadline;

        /** Timeout {@code index} of {@code tracker}, once {@link LatenessTracker#adding} set its deadline. */
        ExpiryBody(LatenessTracker tracker, int index) {
            this.tracker = tracker;
            this.index = index;
            this.deadline = tracker.deadline(index);
        }

        @Override
        public boolean canComplete() {
            return false;
        }

        @Override
        public void expired() {
            tracker.fired(index, deadline);
        }
    }
}
