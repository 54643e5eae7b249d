package io.purgatory.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Workload 2 under load: one thread submits operations that never complete (each on one key of
 * 1000, timeouts uniform in 100..1100 ms, as in workload 2) for a fixed time, so most of them
 * expire while it is still inserting: as fast as it can ({@link #fullSpeed()}), or at a fixed rate,
 * catching up on its schedule and parking {@value #PACED_PARK_MICROS} us between bursts
 * ({@link #paced(int)}). Lateness percentiles are over the operations whose deadline fell before
 * the inserts stopped; lost, early and twice count all. Also measures the largest backlog (ops
 * due and not yet expired, see {@link ExpiryBacklog}), and CPU per insert (the inserting thread)
 * and per expiry (the rest of the process, GC and JIT included, until the last expiry).
 */
final class ExpirationLoadWorkload extends Workload {

    static final long PACED_PARK_MICROS = 100;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final int opsPerSecond;
    final Metric insertRate;
    final Metric due;
    final Metric backlog;
    final Metric insertCpu;
    final Metric expiryCpu;
    final LatenessTracker.Metrics lateness;
    final GcPauses.Metrics gc;

    private ExpirationLoadWorkload(String id, String title, int opsPerSecond, Bar p99) {
        super(id, title, List.of(Impl.OURS, Impl.KAFKA));
        this.opsPerSecond = opsPerSecond;
        this.insertRate = new Metric(title, "inserts/s");
        this.due = new Metric(title, "ops due while inserting");
        this.backlog = new Metric(title, "backlog peak (ops due, not yet expired)");
        this.insertCpu = new Metric(title, "CPU ns/insert (inserting thread)");
        this.expiryCpu = new Metric(title, "CPU ns/expiry (all other threads, GC, JIT)");
        this.lateness = LatenessTracker.Metrics.of(title, p99, Bar.NONE, true);
        this.gc = GcPauses.Metrics.of(title);
    }

    /** Inserts as fast as one thread can: the bar, p99 <= 10 ms. */
    static ExpirationLoadWorkload fullSpeed() {
        return new ExpirationLoadWorkload("expiration-load", "2 expiration under inserts (purgatory)", 0,
                Bar.atMost(10));
    }

    /** Inserts at {@code opsPerSecond}, the same offered load for every implementation. */
    static ExpirationLoadWorkload paced(int opsPerSecond) {
        return new ExpirationLoadWorkload("expiration-load-paced", String.format(Locale.ROOT,
                "2 expiration under %,d inserts/s (purgatory)", opsPerSecond), opsPerSecond, Bar.NONE);
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        int maxMs = sizes.expirationMaxMs();
        LatenessTracker tracker = new LatenessTracker(sizes.expirationLoadMaxOps(), sizes.expirationMinMs(), maxMs);
        BenchKey[] keys = BenchKey.range(sizes.expirationKeys());
        long waitMs = maxMs + ExpirationWorkload.GRACE_MS;
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, id() + "-" + impl.id());
             GcPauses pauses = GcPauses.start()) {
            int capacity = tracker.size();
            int n = 0;
            ExpiryBacklog sampler = new ExpiryBacklog(tracker, 2 * sizes.expirationLoadMillis() + waitMs);
            long cpu0 = Probe.processCpuNanos();
            long threadCpu0 = THREADS.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            long end = t0 + TimeUnit.MILLISECONDS.toNanos(sizes.expirationLoadMillis());
            while (n < capacity) {
                if (opsPerSecond > 0 && System.nanoTime() - (t0 + n * 1_000_000_000L / opsPerSecond) < 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(PACED_PARK_MICROS)); // ahead of schedule
                    continue;
                }
                if (tracker.adding(n) - end >= 0) {
                    break;
                }
                OpBody body = new ExpirationWorkload.ExpiryBody(tracker, n);
                Completable op = purgatory.newOperation(body, tracker.delaysMs[n]);
                purgatory.tryCompleteElseWatch(op, keys[n % keys.length].asList());
                n++;
            }
            long t1 = System.nanoTime();
            long insertCpuNanos = THREADS.getCurrentThreadCpuTime() - threadCpu0;
            int fired = tracker.awaitFirst(n, waitMs);
            long otherCpuNanos = Probe.processCpuNanos() - cpu0 - insertCpuNanos;
            ExpiryBacklog.Peak peak = sampler.stop(n, t0);
            recorder.record(insertRate, n * 1e9 / (t1 - t0));
            int dueCount = tracker.reportDueBy(lateness, recorder, n, t1);
            recorder.record(due, dueCount);
            recorder.record(backlog, peak.ops());
            recorder.record(insertCpu, n == 0 ? Double.NaN : (double) insertCpuNanos / n);
            recorder.record(expiryCpu, fired == 0 ? Double.NaN : (double) otherCpuNanos / fired);
            pauses.report(gc, recorder);
            log.printf("    %s: %,d inserted in %d ms%s, %,d due meanwhile, %,d expired; backlog peak %,d at %d ms;"
                    + " GC %d x, %d ms, longest %d ms%n", impl.id(), n, (t1 - t0) / 1_000_000,
                    n == capacity ? " (capacity reached)" : "", dueCount, fired, peak.ops(), peak.atMs(),
                    pauses.count(), pauses.totalMs(), pauses.longestMs());
        }
    }
}
