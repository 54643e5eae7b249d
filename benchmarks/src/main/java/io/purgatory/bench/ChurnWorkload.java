package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Workload 4, timer churn (timeouts that are almost always cancelled): 2 threads (n in the scaling
 * workload) each keep 10,000
 * tasks outstanding; each step schedules a new task and cancels its thread's oldest. Tasks are
 * 30 s, except 1 in 10 which are 1..50 ms and may fire before they are cancelled. An operation is
 * one schedule or one cancel (a step is two). Measures operations per second and process CPU per
 * operation over a fixed window, after the rings are filled.
 */
final class ChurnWorkload extends Workload {

    static final String TITLE = "4 timer churn";
    private static final int THREADS = 2;
    private static final long LONG_MS = 30_000;

    final Metric rate;
    final Metric cpu;
    private final int threads;

    /** Two threads: the bars. */
    ChurnWorkload() {
        this("churn", TITLE, THREADS, Bar.aheadOfAll(true), Bar.aheadOfAll(false));
    }

    private ChurnWorkload(String id, String title, int threads, Bar rateBar, Bar cpuBar) {
        super(id, title, List.of(Impl.OURS, Impl.KAFKA, Impl.NETTY, Impl.JDK));
        this.threads = threads;
        this.rate = new Metric(title, "ops/s (schedule or cancel)", rateBar);
        this.cpu = new Metric(title, "CPU ns/op", cpuBar);
    }

    /** {@code threads} threads, for the scaling workload (no bars). */
    static ChurnWorkload scaled(int threads) {
        return new ChurnWorkload("scaling-churn-" + threads, String.format(Locale.ROOT,
                "scaling: timer churn, %d thread%s", threads, threads == 1 ? "" : "s"), threads, Bar.NONE, Bar.NONE);
    }

    @Override
    public void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        LongAdder steps = new LongAdder();
        LongAdder fired = new LongAdder();
        TaskBody onFire = fired::increment;
        AtomicBoolean stop = new AtomicBoolean();
        try (TimerUnderTest timer = TimerUnderTest.create(impl, "churn-" + impl.id())) {
            Object[][] rings = new Object[threads][sizes.churnOutstanding()];
            for (Object[] ring : rings) {
                for (int i = 0; i < ring.length; i++) {
                    ring[i] = timer.schedule(LONG_MS, onFire);
                }
            }
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                Object[] ring = rings[t];
                SplittableRandom random = new SplittableRandom(t);
                workers[t] = Threads.start("churn-" + t, () -> {
                    int i = 0;
                    while (!stop.get()) {
                        for (int b = 0; b < 256; b++) {
                            timer.cancel(ring[i]);
                            long delayMs = random.nextInt(10) == 0 ? 1 + random.nextInt(50) : LONG_MS;
                            ring[i] = timer.schedule(delayMs, onFire);
                            i = i + 1 == ring.length ? 0 : i + 1;
                        }
                        steps.add(256);
                    }
                });
            }
            Threads.sleepMillis(Math.min(200, sizes.churnMillis() / 5));
            long s0 = steps.sum();
            long cpu0 = Probe.processCpuNanos();
            long t0 = System.nanoTime();
            Threads.sleepMillis(sizes.churnMillis());
            long s1 = steps.sum();
            long cpu1 = Probe.processCpuNanos();
            long t1 = System.nanoTime();
            stop.set(true);
            Threads.joinAll(workers);
            long ops = 2 * (s1 - s0);
            recorder.record(rate, ops * 1e9 / (t1 - t0));
            recorder.record(cpu, ops == 0 ? Double.NaN : (double) (cpu1 - cpu0) / ops);
            log.printf("    %s: %,d ops in %d ms, %,d short tasks fired, size %,d at the end%n", impl.id(), ops,
                    (t1 - t0) / 1_000_000, fired.sum(), timer.size());
        }
    }
}
