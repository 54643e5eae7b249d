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
    private static final long GRACE_MS = 5_000;

    ExpirationWorkload() {
        super("expiration", TITLE, List.of(Impl.OURS, Impl.KAFKA));
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        LatenessTracker tracker = new LatenessTracker(sizes.expirationOps(), sizes.expirationMinMs(),
                sizes.expirationMaxMs());
        BenchKey[] keys = BenchKey.range(sizes.expirationKeys());
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, "expiration-" + impl.id())) {
            int n = tracker.size();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                tracker.adding(i);
                purgatory.tryCompleteElseWatch(purgatory.newOperation(new ExpiryBody(tracker, i), tracker.delaysMs[i]),
                        keys[i % keys.length].asList());
            }
            long t1 = System.nanoTime();
            recorder.record(INSERT_RATE, n * 1e9 / (t1 - t0));
            int fired = tracker.awaitAll(sizes.expirationMaxMs() + GRACE_MS);
            tracker.report(METRICS, recorder);
            log.printf("    %s: %,d inserted in %d ms, %,d expired%n", impl.id(), n, (t1 - t0) / 1_000_000, fired);
        }
    }

    /** Never completes; records its expiry. */
    private static final class ExpiryBody implements OpBody {
        private final LatenessTracker tracker;
        private final int index;

        ExpiryBody(LatenessTracker tracker, int index) {
            this.tracker = tracker;
            this.index = index;
        }

        @Override
        public boolean canComplete() {
            return false;
        }

        @Override
        public void expired() {
            tracker.fired(index);
        }
    }
}
