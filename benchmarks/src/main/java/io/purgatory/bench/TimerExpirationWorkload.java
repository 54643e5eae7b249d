package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;

/**
 * Workload 2 at the timer level: the same timeouts (uniform 100..1100 ms, one thread adding as fast
 * as it can) on the four timers. Measures insert rate and lateness, and counts lost, early and
 * doubled fires. Informational: the bars apply to the purgatory-level run.
 */
final class TimerExpirationWorkload extends Workload {

    static final String TITLE = "2 expiration (timer)";
    static final Metric INSERT_RATE = new Metric(TITLE, "inserts/s");
    static final LatenessTracker.Metrics METRICS = LatenessTracker.Metrics.of(TITLE, false);
    private static final long GRACE_MS = 5_000;

    TimerExpirationWorkload() {
        super("expiration-timer", TITLE, List.of(Impl.OURS, Impl.KAFKA, Impl.NETTY, Impl.JDK));
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        LatenessTracker tracker = new LatenessTracker(sizes.expirationOps(), sizes.expirationMinMs(),
                sizes.expirationMaxMs());
        try (TimerUnderTest timer = TimerUnderTest.create(impl, "timer-expiration-" + impl.id())) {
            int n = tracker.size();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                int index = i;
                tracker.adding(i);
                long deadline = tracker.deadline(i);
                timer.schedule(tracker.delaysMs[i], () -> tracker.fired(index, deadline));
            }
            long t1 = System.nanoTime();
            recorder.record(INSERT_RATE, n * 1e9 / (t1 - t0));
            int fired = tracker.awaitAll(sizes.expirationMaxMs() + GRACE_MS);
            tracker.report(METRICS, recorder);
            log.printf("    %s: %,d inserted in %d ms, %,d fired%n", impl.id(), n, (t1 - t0) / 1_000_000, fired);
        }
    }
}
