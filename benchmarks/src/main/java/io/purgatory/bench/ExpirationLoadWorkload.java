package io.purgatory.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    private final int opsPerSecond;
    /** Ours on a timer with this back-pressure bound; null: ours with its defaults. */
    private final Duration backPressure;
    final Metric insertRate;
    final Metric due;
    final Metric backlog;
    final Metric insertCpu;
    final Metric expiryCpu;
    final LatenessTracker.Metrics lateness;
    final GcPauses.Metrics gc;
    private final Metric waits;
    private final Metric waited;

    private ExpirationLoadWorkload(String id, String title, int opsPerSecond, Duration backPressure, Bar p99,
                                   Bar rate) {
        super(id, title, backPressure == null ? List.of(Impl.OURS, Impl.KAFKA, Impl.PROTO)
                : List.of(Impl.OURS, Impl.KAFKA));
        this.opsPerSecond = opsPerSecond;
        this.backPressure = backPressure;
        this.insertRate = new Metric(title, "inserts/s", rate);
        this.waits = backPressure == null ? null : new Metric(title, "adds that waited (back-pressure)");
        this.waited = backPressure == null ? null : new Metric(title, "time the inserter waited (ms)");
        this.due = new Metric(title, "ops due while inserting");
        this.backlog = new Metric(title, "backlog peak (ops due, not yet expired)");
        this.insertCpu = new Metric(title, "CPU ns/insert (inserting thread)");
        this.expiryCpu = new Metric(title, "CPU ns/expiry (all other threads, GC, JIT)");
        this.lateness = LatenessTracker.Metrics.of(title, p99, Bar.NONE, true);
        this.gc = GcPauses.Metrics.of(title);
    }

    /** Inserts as fast as one thread can: the bar, p99 <= 10 ms. */
    static ExpirationLoadWorkload fullSpeed() {
        return new ExpirationLoadWorkload("expiration-load", "2 expiration under inserts (purgatory)", 0, null,
                Bar.atMost(10), Bar.NONE);
    }

    /**
     * As fast as one thread can, ours on a timer with {@code backPressure}: the overload bar, p99 no
     * worse than Kafka's while inserting at least as fast.
     */
    static ExpirationLoadWorkload fullSpeed(Duration backPressure) {
        return new ExpirationLoadWorkload("expiration-load-backpressure", String.format(Locale.ROOT,
                "2 expiration under inserts, ours with back-pressure at %d ms (purgatory)", backPressure.toMillis()), 0,
                backPressure, Bar.atMostFractionOfKafka(1), Bar.atLeastTimesKafka(1));
    }

    /** Inserts at {@code opsPerSecond}, the same offered load for every implementation. */
    static ExpirationLoadWorkload paced(int opsPerSecond) {
        return new ExpirationLoadWorkload("expiration-load-paced", String.format(Locale.ROOT,
                "2 expiration under %,d inserts/s (purgatory)", opsPerSecond), opsPerSecond, null, Bar.NONE, Bar.NONE);
    }

    /**
     * Then a note on the prototype, which has no column: the settle of a purgatory with array key
     * lists, no claim around a try and no counters (ProtoPurgatory), on the same timer.
     */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        super.runAll(sizes, options, results, log);
        if (results.medians(expiryCpu).containsKey(Impl.PROTO)) {
            results.note(title() + ", " + Impl.PROTO.label() + ", see ProtoPurgatory: " + results.describe(Impl.PROTO,
                    List.of(insertRate, insertCpu, expiryCpu, lateness.p99()), List.of(Impl.KAFKA, Impl.OURS)) + ".");
        }
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        LoadRun run = run(impl, id() + "-" + impl.id(), opsPerSecond, sizes.expirationLoadMillis(),
                sizes.expirationLoadMaxOps(), sizes, backPressure);
        recorder.record(insertRate, run.insertRate());
        LatenessTracker.Summary s = run.lateness();
        lateness.record(s, recorder);
        recorder.record(due, s.count());
        recorder.record(backlog, run.backlogPeak().ops());
        recorder.record(insertCpu, run.insertCpuNanos());
        recorder.record(expiryCpu, run.expiryCpuNanos());
        recorder.record(gc.count(), run.gcCount());
        recorder.record(gc.totalMs(), (double) run.gcTotalMs());
        recorder.record(gc.longestMs(), (double) run.gcLongestMs());
        if (waits != null) {
            recorder.record(waits, (double) run.backPressureWaits());
            recorder.record(waited, run.backPressureWaitedNanos() / 1e6);
        }
        log.printf("    %s%n", run.describe());
    }

    /**
     * One run: a new purgatory of {@code impl} (ours on a timer with {@code backPressure} if not
     * null), one thread inserting for {@code millis} (at most {@code maxOps}) at {@code opsPerSecond}
     * (0: as fast as it can), then waiting for every expiry (at most the longest timeout plus
     * {@link ExpirationWorkload#GRACE_MS}).
     */
    static LoadRun run(Impl impl, String name, int opsPerSecond, long millis, int maxOps, Sizes sizes,
                       Duration backPressure) {
        return run(Target.purgatory(impl, name, BenchKey.range(sizes.expirationKeys()), backPressure), impl, name,
                opsPerSecond, millis, maxOps, sizes);
    }

    /** As {@link #run(Impl, String, int, long, int, Sizes, Duration)}, inserting into {@code target}. */
    static LoadRun run(Target target, Impl impl, String name, int opsPerSecond, long millis, int maxOps,
                       Sizes sizes) {
        int maxMs = sizes.expirationMaxMs();
        LatenessTracker tracker = new LatenessTracker(maxOps, sizes.expirationMinMs(), maxMs);
        long waitMs = maxMs + ExpirationWorkload.GRACE_MS;
        try (target; GcPauses pauses = GcPauses.start()) {
            int capacity = tracker.size();
            int n = 0;
            ExpiryBacklog sampler = new ExpiryBacklog(tracker, 2 * millis + waitMs);
            Map<Long, Long> allocated0 = Probe.allocatedBytesByThread();
            ThreadCpu cpu0 = new ThreadCpu();
            long t0 = System.nanoTime();
            long end = t0 + TimeUnit.MILLISECONDS.toNanos(millis);
            while (n < capacity) {
                if (opsPerSecond > 0 && System.nanoTime() - (t0 + n * 1_000_000_000L / opsPerSecond) < 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(PACED_PARK_MICROS)); // ahead of schedule
                    continue;
                }
                if (tracker.adding(n) - end >= 0) {
                    break;
                }
                target.insert(tracker, n);
                n++;
            }
            long t1 = System.nanoTime();
            int fired = tracker.awaitFirst(n, waitMs);
            ThreadCpu.Split cpu = cpu0.since(target.driverThread(), name);
            long allocated = Probe.allocatedBetween(allocated0, Probe.allocatedBytesByThread());
            ExpiryBacklog.Peak peak = sampler.stop(n, t0);
            long[] waited = target.backPressureWaits();
            return new LoadRun(impl, opsPerSecond, n, n == capacity, t1 - t0, fired,
                    tracker.summarize(n, Long.MIN_VALUE, t1), tracker.summarize(n, t0 + (t1 - t0) / 2, t1), peak, cpu,
                    pauses.count(), pauses.totalMs(), pauses.longestMs(), pauses.cycles(), pauses.cyclesMs(),
                    waited[0], waited[1], allocated);
        }
    }

    /** What the inserting thread adds timeouts to: a purgatory or a timer. */
    interface Target extends AutoCloseable {

        /** Adds timeout {@code i} of {@code tracker} (call {@link LatenessTracker#adding} first). */
        void insert(LatenessTracker tracker, int i);

        /** A part of the name of the thread that drives the timer, for the CPU split. */
        String driverThread();

        /** The back-pressure counters of ours: adds that waited and their total wait in ns; zeros if none. */
        default long[] backPressureWaits() {
            return new long[2];
        }

        @Override
        void close();

        /**
         * Operations that never complete, each watched on one of {@code keys} in turn: a purgatory of
         * {@code impl}, ours on a timer with {@code backPressure} if not null.
         */
        static Target purgatory(Impl impl, String name, BenchKey[] keys, Duration backPressure) {
            PurgatoryUnderTest purgatory = impl == Impl.OURS && backPressure != null
                    ? new OursPurgatory(name, backPressure) : PurgatoryUnderTest.create(impl, name);
            return new Target() {
                @Override
                public void insert(LatenessTracker tracker, int i) {
                    Completable op = purgatory.newOperation(new ExpirationWorkload.ExpiryBody(tracker, i),
                            tracker.delaysMs[i]);
                    purgatory.tryCompleteElseWatch(op, keys[i % keys.length].asList());
                }

                @Override
                public String driverThread() {
                    return "ExpirationReaper";
                }

                @Override
                public long[] backPressureWaits() {
                    return purgatory instanceof OursPurgatory ours ? ours.backPressureWaits() : new long[2];
                }

                @Override
                public void close() {
                    purgatory.close();
                }
            };
        }

        /** Tasks on a timer of {@code impl} (ours, Kafka's, Netty's or the JDK's, driven as their authors intend). */
        static Target timer(Impl impl, String name) {
            TimerUnderTest timer = TimerUnderTest.create(impl, name);
            return new Target() {
                @Override
                public void insert(LatenessTracker tracker, int i) {
                    long deadline = tracker.deadline(i);
                    timer.schedule(tracker.delaysMs[i], () -> tracker.fired(i, deadline));
                }

                @Override
                public String driverThread() {
                    return name + "-reaper";
                }

                @Override
                public void close() {
                    timer.close();
                }
            };
        }
    }

    /**
     * What one {@link #run} measured: {@code inserted} operations in {@code insertNanos}, the lateness
     * of those due by the end of the inserts, the backlog peak, CPU per insert (the inserting
     * thread) and per expiry (the rest of the process), the GC collections, and the bytes the Java
     * threads allocated from the first insert to the last expiry (the harness's own included: the same
     * for every implementation).
     */
    record LoadRun(Impl impl, int targetRate, int inserted, boolean capacityReached, long insertNanos, int fired,
                   LatenessTracker.Summary lateness, LatenessTracker.Summary secondHalf, ExpiryBacklog.Peak backlogPeak,
                   ThreadCpu.Split cpu,
                   int gcCount, long gcTotalMs, long gcLongestMs, int gcCycles, long gcCyclesMs, long backPressureWaits,
                   long backPressureWaitedNanos, long allocatedBytes) {

        double insertRate() {
            return inserted * 1e9 / insertNanos;
        }

        /** Bytes allocated per insert, by every Java thread, from the first insert to the last expiry. */
        double allocatedPerInsert() {
            return inserted == 0 ? Double.NaN : (double) allocatedBytes / inserted;
        }

        /** CPU of the inserting thread per insert, ns. */
        double insertCpuNanos() {
            return inserted == 0 ? Double.NaN : (double) cpu.inserter() / inserted;
        }

        /** CPU of every other thread (GC, JIT and the harness's sampler too) per expiry, ns. */
        double expiryCpuNanos() {
            return perExpiry(cpu.driver() + cpu.executor() + cpu.otherJava() + cpu.vm());
        }

        private double perExpiry(long nanos) {
            return fired == 0 ? Double.NaN : (double) nanos / fired;
        }

        String describe() {
            return String.format(Locale.ROOT, "%s%s: %,d inserted in %d ms (%,.0f/s)%s, %,d due meanwhile,"
                    + " %,d expired; p50 %.2f p99 %.2f p99.9 %.2f p99.99 %.2f max %.2f ms (due in the second half:"
                    + " p99 %.2f); lateness/delay p99.99 %.3g%%, %,d later than max(1 ms, 6.25%% of delay);"
                    + " backlog peak %,d at %d ms;"
                    + " CPU %.0f ns/insert, %.0f ns/expiry (driver %.0f, executor %.0f, other threads %.0f,"
                    + " GC/JIT/VM %.0f); %.0f B allocated/insert; GC %d pauses, %d ms, longest %d ms, %d concurrent"
                    + " cycles, %d ms%s",
                    impl.id(), targetRate > 0 ? String.format(Locale.ROOT, " @ %,d/s", targetRate) : "", inserted,
                    insertNanos / 1_000_000, insertRate(), capacityReached ? " (capacity reached)" : "",
                    lateness.count(), fired, lateness.p50Ms(), lateness.p99Ms(), lateness.p999Ms(),
                    lateness.p9999Ms(), lateness.maxMs(), secondHalf.p99Ms(), lateness.ofDelayP9999Percent(),
                    lateness.overBound(), backlogPeak.ops(), backlogPeak.atMs(), insertCpuNanos(),
                    expiryCpuNanos(),
                    perExpiry(cpu.driver()), perExpiry(cpu.executor()), perExpiry(cpu.otherJava()),
                    perExpiry(cpu.vm()), allocatedPerInsert(), gcCount, gcTotalMs, gcLongestMs, gcCycles, gcCyclesMs,
                    backPressureWaits == 0 ? ""
                            : String.format(Locale.ROOT, "; %,d adds waited %d ms in all", backPressureWaits,
                            backPressureWaitedNanos / 1_000_000));
        }
    }
}
