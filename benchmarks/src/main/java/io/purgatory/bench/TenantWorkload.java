package io.purgatory.bench;

import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.TenantFullException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Workload 14, tenant isolation: one {@code KeyedWaits} shared by two tenants (a key's tenant is
 * its sign: B's keys are negative). Tenant B waits at {@value #B_PER_MS} wait per ms (1,000/s) on
 * a key of its own, each answered by its event {@value #B_EVENT_DELAY_TICKS} ticks (2 ms) later,
 * on B's thread: B's wait-to-answer time is from its {@code await} to its future's completion.
 * Tenant A floods at 100x B's rate ({@value #A_PER_MS} waits per ms), never answered, each timing
 * out after {@value #A_TIMEOUT_MS} ms. Both are paced by the clock on threads of their own (a tick
 * missed is caught up at once). Four scenarios in each round, in this order: B alone; A and B with
 * a per-tenant bound ({@code tenants(key -> sign, }{@value #PER_TENANT}{@code )}, beside
 * {@code maxPending(}{@value #MAX_PENDING}{@code )}); the floor, A flooding its own {@code KeyedWaits};
 * A and B with {@code maxPending} alone (what the bound buys). Each runs {@code tenantMillis} measured
 * after a ramp of {@value #RAMP_MILLIS} ms.
 *
 * <p>The floor: B exactly as alone, on a {@code KeyedWaits} of its own, while A runs the same flood
 * with the same bound and {@code maxPending} on another one, so the two share none of the library's
 * locks, shards or admission. Both are built on one {@link PurgatoryRuntime} (one timer, its driver
 * thread and two expiration threads, as one {@code KeyedWaits} has by default): the threads, and so
 * the competition for the CPU, are those of the shared scenario. B's p99 shared over B's p99 on the
 * floor (the same round) is then the library's own share of the rise; the floor over B alone is the
 * machine's (and the shared timer's).
 *
 * <p>Bar: B's p99 with A flooding at most 1.10x B alone (the ratio in the same round). No peer: Kafka's
 * purgatory bounds nothing, per tenant or in all.
 */
final class TenantWorkload extends Workload {

    static final String TITLE = "14 tenant isolation";
    static final int B_PER_MS = 1;
    static final int A_PER_MS = 100;
    static final int B_EVENT_DELAY_TICKS = 2;
    static final long A_TIMEOUT_MS = 100;
    static final int PER_TENANT = 1_000;
    static final int MAX_PENDING = 5_000;
    private static final long RAMP_MILLIS = 500;
    private static final Duration B_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration A_TIMEOUT = Duration.ofMillis(A_TIMEOUT_MS);
    private static final int A_KEYS = 1 << 16;
    private static final int B_KEYS = 1 << 12;
    private static final long TICK_NANOS = 1_000_000;

    private enum Scenario {
        ALONE("B alone"), BOUND("A flooding, tenant bound"), FLOOR("A flooding its own KeyedWaits (the floor)"),
        UNBOUND("A flooding, maxPending only");

        final String label;

        Scenario(String label) {
            this.label = label;
        }
    }

    private final Results results;
    private final Map<String, Metric> metrics = new HashMap<>();
    private final Long[] aKeys = new Long[A_KEYS];
    private final Long[] bKeys = new Long[B_KEYS];
    private boolean explained;

    TenantWorkload(Results results) {
        super("tenants", TITLE, List.of(Impl.OURS));
        this.results = results;
        for (int i = 0; i < A_KEYS; i++) {
            aKeys[i] = (long) i;
        }
        for (int i = 0; i < B_KEYS; i++) {
            bKeys[i] = -1L - i;
        }
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        Run alone = run(Scenario.ALONE, sizes, log);
        Probe.settle(sizes);
        Run bound = run(Scenario.BOUND, sizes, log);
        Probe.settle(sizes);
        Run floor = run(Scenario.FLOOR, sizes, log);
        Probe.settle(sizes);
        Run unbound = run(Scenario.UNBOUND, sizes, log);
        for (Run r : List.of(alone, bound, floor, unbound)) {
            String s = r.scenario.label;
            recorder.record(metric("B wait-to-answer p50 (us), " + s, Bar.NONE), r.bP50Us());
            recorder.record(metric("B wait-to-answer p99 (us), " + s, Bar.NONE), r.bP99Us());
            recorder.record(metric("B refused (share of its waits, %), " + s,
                    r.scenario == Scenario.UNBOUND ? Bar.NONE : Bar.zero()), r.bRefusedPercent());
            if (r.scenario != Scenario.ALONE) {
                recorder.record(metric("B p99 / B alone's p99 (same round), " + s,
                        r.scenario == Scenario.BOUND ? Bar.atMost(1.10) : Bar.NONE), r.bP99Us() / alone.bP99Us());
                recorder.record(metric("A refused (share of its waits, %), " + s, Bar.NONE), r.aRefusedPercent());
                recorder.record(metric("A refused at its tenant bound (count), " + s, Bar.NONE),
                        (double) r.aTenantRefused);
                recorder.record(metric("A's most pending, " + s, Bar.NONE), (double) r.aMostPending);
                recorder.record(metric("A's CPU per submission (ns), " + s, Bar.NONE), r.aCpuPerSubmissionNanos());
            }
        }
        recorder.record(metric("B p99, shared / floor (same round)", Bar.NONE), bound.bP99Us() / floor.bP99Us());
        if (recorder != Results.Recorder.DISCARD && !explained) {
            explained = true;
            results.note(String.format(Locale.ROOT, "Workload 14 (tenant isolation): one KeyedWaits, tenant B at"
                    + " 1,000 waits/s answered 2 ms later, tenant A at 100,000 waits/s never answered (timeout"
                    + " %d ms); bound %,d per tenant beside maxPending %,d, or maxPending %,d alone. The floor: A's"
                    + " same flood on a KeyedWaits of its own, beside B's, both on one PurgatoryRuntime (the same"
                    + " threads as one KeyedWaits); shared / floor is the library's share of B's rise. No Kafka"
                    + " column: Kafka's purgatory has no bound of any kind.", A_TIMEOUT_MS, PER_TENANT, MAX_PENDING,
                    MAX_PENDING));
        }
    }

    /** The row named {@code name}, made once: a bar holds a lambda, so a new one each round would be a new row. */
    private Metric metric(String name, Bar bar) {
        return metrics.computeIfAbsent(name, n -> new Metric(TITLE, n, bar));
    }

    private Run run(Scenario scenario, Sizes sizes, PrintStream log) {
        String name = "tenants-" + scenario.name().toLowerCase(Locale.ROOT);
        if (scenario != Scenario.FLOOR) {
            KeyedWaits<Long, Long> waits = waits(KeyedWaits.builder(name), scenario != Scenario.UNBOUND);
            try {
                return run(scenario, waits, waits, sizes, log);
            } finally {
                waits.close();
            }
        }
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder(name).build()) { // closes both waits
            KeyedWaits<Long, Long> bWaits = waits(KeyedWaits.builder(name + "-b").runtime(runtime), true);
            KeyedWaits<Long, Long> aWaits = waits(KeyedWaits.builder(name + "-a").runtime(runtime), true);
            return run(scenario, aWaits, bWaits, sizes, log);
        }
    }

    /** The waits of every scenario: {@code maxPending}, and the tenant bound if {@code bound}. */
    private static KeyedWaits<Long, Long> waits(KeyedWaitsBuilder builder, boolean bound) {
        builder.maxPending(MAX_PENDING);
        if (bound) {
            builder.tenants((Long key) -> key < 0 ? "B" : "A", PER_TENANT);
        }
        return builder.build();
    }

    /** Runs B on {@code bWaits} and, but alone, A on {@code aWaits} (the same waits but on the floor). */
    private Run run(Scenario scenario, KeyedWaits<Long, Long> aWaits, KeyedWaits<Long, Long> bWaits, Sizes sizes,
            PrintStream log) {
        long millis = sizes.tenantMillis();
        long start = System.nanoTime() + 20_000_000L; // both threads start on the same tick
        long measureFrom = start + RAMP_MILLIS * 1_000_000L;
        long end = measureFrom + millis * 1_000_000L;
        Run run = new Run(scenario, (int) ((RAMP_MILLIS + millis) * B_PER_MS + 16), measureFrom);
        long bHeld = aWaits == bWaits ? 2 : 0; // B holds about 2 of the pending A's waits read
        Thread b = Threads.start("tenants-b", () -> tenantB(bWaits, run, start, measureFrom, end));
        Thread a = scenario == Scenario.ALONE ? null
                : Threads.start("tenants-a", () -> tenantA(aWaits, bHeld, run, start, measureFrom, end));
        Threads.joinAll(b);
        if (a != null) {
            Threads.joinAll(a);
        }
        log.printf(Locale.ROOT, "    %s: %s%n", scenario.label, run);
        return run;
    }

    /** B's loop: one wait per tick on the next key, and the event of the wait made two ticks ago. */
    private void tenantB(KeyedWaits<Long, Long> waits, Run run, long start, long measureFrom, long end) {
        long[] awaitedAt = run.bAwaitedAt;
        long[] answeredAt = run.bAnsweredAt;
        boolean[] accepted = new boolean[awaitedAt.length];
        int i = 0;
        long tick = start;
        while (tick < end && i < awaitedAt.length) {
            parkUntil(tick);
            long now = System.nanoTime();
            while (tick <= now && tick < end && i < awaitedAt.length) { // catch up on missed ticks
                int seq = i++;
                long t0 = System.nanoTime();
                CompletableFuture<Long> f = waits.await(bKeys[seq & (B_KEYS - 1)], B_TIMEOUT);
                awaitedAt[seq] = t0;
                if (f.isCompletedExceptionally()) {
                    if (t0 >= measureFrom) {
                        run.bRefused++;
                    }
                } else {
                    accepted[seq] = true;
                    CompletableFuture<Long> unused =
                            f.whenComplete((v, e) -> answeredAt[seq] = e == null ? System.nanoTime() : -1);
                }
                int answer = seq - B_EVENT_DELAY_TICKS;
                if (answer >= 0 && accepted[answer]) {
                    waits.complete(bKeys[answer & (B_KEYS - 1)], (long) answer);
                }
                tick += TICK_NANOS / B_PER_MS;
            }
        }
        for (int k = Math.max(0, i - B_EVENT_DELAY_TICKS); k < i; k++) { // the last ones' events
            if (accepted[k]) {
                waits.complete(bKeys[k & (B_KEYS - 1)], (long) k);
            }
        }
        run.bCount = i;
        run.bAccepted = accepted;
    }

    /** A's loop: {@value #A_PER_MS} waits per tick on its own keys, never answered. */
    private void tenantA(KeyedWaits<Long, Long> waits, long bHeld, Run run, long start, long measureFrom, long end) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int k = 0;
        long tick = start;
        long cpuFrom = -1;
        while (tick < end) {
            parkUntil(tick);
            long now = System.nanoTime();
            while (tick <= now && tick < end) {
                boolean measured = tick >= measureFrom;
                if (measured && cpuFrom < 0) {
                    cpuFrom = threads.getCurrentThreadCpuTime();
                }
                for (int j = 0; j < A_PER_MS; j++) {
                    CompletableFuture<Long> f = waits.await(aKeys[k++ & (A_KEYS - 1)], A_TIMEOUT);
                    if (!measured) {
                        continue;
                    }
                    run.aSubmitted++;
                    if (f.isCompletedExceptionally()) {
                        run.aRefused++;
                        if (f.handle((v, e) -> e).getNow(null) instanceof TenantFullException) { // getNow would
                            run.aTenantRefused++; // wrap it in a new CompletionException, whose trace A would pay
                        }
                    }
                }
                if (measured) {
                    run.aMostPending = Math.max(run.aMostPending, waits.pending() - bHeld);
                }
                tick += TICK_NANOS;
            }
        }
        run.aCpuNanos = cpuFrom < 0 ? 0 : threads.getCurrentThreadCpuTime() - cpuFrom;
    }

    private static void parkUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** One scenario's figures; B's arrays are written by B's thread (and its futures' completions on it). */
    private static final class Run {
        final Scenario scenario;
        final long measureFrom;
        final long[] bAwaitedAt;
        final long[] bAnsweredAt;
        boolean[] bAccepted;
        int bCount;
        long bRefused;
        long aSubmitted;
        long aRefused;
        long aTenantRefused;
        long aMostPending;
        /** The CPU time of A's thread over the measured window: its submissions, refusals and counting. */
        long aCpuNanos;
        private long[] latencies;
        private long bMeasured;

        Run(Scenario scenario, int capacity, long measureFrom) {
            this.scenario = scenario;
            this.measureFrom = measureFrom;
            this.bAwaitedAt = new long[capacity];
            this.bAnsweredAt = new long[capacity];
        }

        /** B's wait-to-answer times of the waits made in the measured window, sorted (ns). */
        private long[] latencies() {
            if (latencies == null) {
                long[] l = new long[bCount];
                int n = 0;
                long measured = 0;
                for (int i = 0; i < bCount; i++) {
                    if (bAwaitedAt[i] < measureFrom) {
                        continue;
                    }
                    measured++;
                    if (bAccepted[i] && bAnsweredAt[i] > 0) {
                        l[n++] = bAnsweredAt[i] - bAwaitedAt[i];
                    }
                }
                latencies = Arrays.copyOf(l, n);
                Arrays.sort(latencies);
                bMeasured = measured;
            }
            return latencies;
        }

        double bP50Us() {
            return Probe.percentile(latencies(), 0.50) / 1e3;
        }

        double bP99Us() {
            return Probe.percentile(latencies(), 0.99) / 1e3;
        }

        double bRefusedPercent() {
            latencies();
            return bMeasured == 0 ? Double.NaN : 100.0 * bRefused / bMeasured;
        }

        double aCpuPerSubmissionNanos() {
            return aSubmitted == 0 ? Double.NaN : (double) aCpuNanos / aSubmitted;
        }

        double aRefusedPercent() {
            return aSubmitted == 0 ? Double.NaN : 100.0 * aRefused / aSubmitted;
        }

        @Override
        public String toString() {
            long[] l = latencies();
            return String.format(Locale.ROOT, "B %,d waits measured, %,d answered, %,d refused; wait-to-answer p50"
                            + " %.1f us, p99 %.1f us, max %.1f us; A %,d submitted, %,d refused (%,d at its tenant"
                            + " bound, %.1f%%), most pending %,d, CPU %.0f ns per submission", bMeasured, l.length,
                    bRefused, bP50Us(), bP99Us(), l.length == 0 ? Double.NaN : l[l.length - 1] / 1e3, aSubmitted,
                    aRefused, aTenantRefused, aRefusedPercent(), aMostPending, aCpuPerSubmissionNanos());
        }
    }
}
