package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * Workload 3, memory: 1,000,000 pending operations (no state of their own, 10 minute timeout) on
 * 10,000 keys, one key each. Measures heap bytes per pending operation (heap after full GCs,
 * minus the heap before the first submit, over n), and the cost of one read of each gauge,
 * {@code numDelayed()} (pending) and {@code watched()}, with all of them pending. The first
 * measured round of each implementation also notes a per-class breakdown.
 */
final class MemoryWorkload extends Workload {

    static final String TITLE = "3 memory";
    static final Metric BYTES = new Metric(TITLE, "heap bytes/pending op", Bar.atMost(80));
    static final Metric PENDING_NS = new Metric(TITLE, "numDelayed() read (ns)", Bar.below(1000));
    static final Metric WATCHED_NS = new Metric(TITLE, "watched() read (ns)", Bar.below(1000));
    private static final long TIMEOUT_MS = 600_000;
    private static final long GAUGE_BUDGET_NANOS = 300_000_000L;

    private final Results results;
    private final boolean[] noted = new boolean[Impl.values().length];
    @SuppressWarnings("unused") // written only, so that the JIT keeps the reads it sums
    private volatile int sink;

    MemoryWorkload(Results results) {
        super("memory", TITLE, List.of(Impl.OURS, Impl.KAFKA));
        this.results = results;
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        int n = sizes.memoryOps();
        BenchKey[] keys = BenchKey.range(sizes.memoryKeys());
        boolean breakdown = recorder != Results.Recorder.DISCARD && !noted[impl.ordinal()];
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, "memory-" + impl.id())) {
            ClassHistogram h0 = breakdown ? ClassHistogram.take() : null;
            long before = Probe.heapUsedAfterGc();
            for (int i = 0; i < n; i++) {
                purgatory.tryCompleteElseWatch(purgatory.newOperation(OpBody.NEVER, TIMEOUT_MS),
                        keys[i % keys.length].asList());
            }
            long after = Probe.heapUsedAfterGc();
            double perOp = (double) (after - before) / n;
            recorder.record(BYTES, perOp);
            if (breakdown) {
                noted[impl.ordinal()] = true;
                List<String> lines = ClassHistogram.take().perOperationSince(h0, n);
                results.note("Memory per pending operation, " + impl.label() + " (live-object histogram, "
                        + String.format(Locale.ROOT, "%,d", n) + " pending):\n\n"
                        + String.join("\n", lines.stream().map(l -> "- " + l).toList()));
            }
            if (purgatory.numDelayed() != n) {
                log.printf("    %s: numDelayed() = %d, expected %d%n", impl.id(), purgatory.numDelayed(), n);
            }
            recorder.record(PENDING_NS, nanosPerRead(purgatory::numDelayed));
            recorder.record(WATCHED_NS, nanosPerRead(purgatory::watched));
            log.printf("    %s: %.1f bytes per pending operation%n", impl.id(), perOp);
        }
    }

    /** Mean ns of one call: batches that double while short, for a time budget and at least 5 calls. */
    private double nanosPerRead(IntSupplier gauge) {
        int s = 0;
        long calls = 0;
        int batch = 1;
        long t0 = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < batch; i++) {
                s += gauge.getAsInt();
            }
            calls += batch;
            elapsed = System.nanoTime() - t0;
            if (elapsed < GAUGE_BUDGET_NANOS / 100) {
                batch = Math.min(batch * 2, 1 << 16);
            }
        } while (elapsed < GAUGE_BUDGET_NANOS || calls < 5);
        sink = s;
        return (double) elapsed / calls;
    }
}
