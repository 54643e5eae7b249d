package io.purgatory.bench;

import io.purgatory.PendingOrder;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * Workload 13, the cost of the operators' list: {@code listOps} operations pending (no state of
 * their own, never due during the run) on {@code listKeys} keys chosen at random, or on one hot
 * key; then {@code listPending(100, OLDEST_FIRST)} and {@code listPending(100, SOONEST_DUE_FIRST)}
 * called again and again on one thread after a warm-up: the p50 and p99 of the calls, and the bytes
 * the calling thread allocated per call. Three shapes: spread keys with one timeout (10 min), spread
 * keys with timeouts spread over 5 to 15 min (the soonest due are then anywhere in the watch
 * order), and one hot key.
 *
 * <p>Kafka's purgatory has no list. Its nearest is its {@code watched()} gauge (PurgatorySize),
 * which walks every watch list of every shard and counts each one's queue node by node: the
 * Kafka column of this workload's rows is that walk, timed the same way, beside our list. Its
 * ratio is ours over the walk, not the same operation's.
 *
 * <p>The spread shape also times a probe on another thread: round trips (a new operation watched on
 * one of {@value #PROBE_KEYS} keys of its own, then {@code checkAndComplete} of that key, which
 * completes it), timed each, after a warm-up of its own, in four alternating phases: the probe
 * alone, then with a third thread listing in a loop (ours: both orders in turn; Kafka: its walk),
 * twice. p99 of each condition, and the ratio listing / alone in the same round.
 */
final class ListCostWorkload extends Workload {

    /** The budget for the first 100 of 1M, in us. */
    static final double BAR_US = 1_000;
    static final int LIMIT = 100;
    static final int PROBE_KEYS = 4096;
    private static final long TIMEOUT_MS = 600_000;
    private static final int MAX_CALLS = 5_000;

    private enum Shape { SPREAD, TIMEOUTS, HOT }

    private final Shape shape;
    private final Results results;
    private final Metric oldestP50;
    private final Metric oldestP99;
    private final Metric oldestBytes;
    private final Metric dueP50;
    private final Metric dueP99;
    private final Metric dueBytes;
    private final Metric probeAloneP99;
    private final Metric probeListingP99;
    private final Metric probeRatio;
    private final Metric probeListingMax;
    private boolean explained;
    @SuppressWarnings("unused") // written only, so that the JIT keeps the calls it sums
    private volatile long sink;

    private ListCostWorkload(String id, String title, Shape shape, Results results) {
        super(id, title, List.of(Impl.OURS, Impl.KAFKA));
        this.shape = shape;
        this.results = results;
        Bar bar = Bar.atMost(BAR_US);
        this.oldestP50 = new Metric(title, "listPending(100, OLDEST_FIRST) p50 (us)", bar);
        this.oldestP99 = new Metric(title, "listPending(100, OLDEST_FIRST) p99 (us)", bar);
        this.oldestBytes = new Metric(title, "listPending(100, OLDEST_FIRST) allocated (B/call)");
        this.dueP50 = new Metric(title, "listPending(100, SOONEST_DUE_FIRST) p50 (us)", bar);
        this.dueP99 = new Metric(title, "listPending(100, SOONEST_DUE_FIRST) p99 (us)", bar);
        this.dueBytes = new Metric(title, "listPending(100, SOONEST_DUE_FIRST) allocated (B/call)");
        this.probeAloneP99 = new Metric(title, "probe round trip p99, alone (us)");
        this.probeListingP99 = new Metric(title, "probe round trip p99, while listing (us)");
        this.probeListingMax = new Metric(title, "probe round trip max, while listing (us)");
        this.probeRatio = new Metric(title, "probe round trip p99, listing / alone (same round)");
    }

    /** 1M pending on 100,000 keys, one timeout. */
    static ListCostWorkload spread(Results results) {
        return new ListCostWorkload("list-spread", "13 list cost (spread keys)", Shape.SPREAD, results);
    }

    /** 1M pending on 100,000 keys, timeouts spread over 5 to 15 min. */
    static ListCostWorkload timeouts(Results results) {
        return new ListCostWorkload("list-timeouts", "13 list cost (spread keys, mixed timeouts)", Shape.TIMEOUTS,
                results);
    }

    /** 1M pending on one key. */
    static ListCostWorkload hot(Results results) {
        return new ListCostWorkload("list-hot", "13 list cost (one hot key)", Shape.HOT, results);
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        int n = sizes.listOps();
        int nKeys = shape == Shape.HOT ? 1 : sizes.listKeys();
        BenchKey[] all = BenchKey.range(nKeys + PROBE_KEYS);
        BenchKey[] keys = Arrays.copyOfRange(all, 0, nKeys);
        BenchKey[] probeKeys = Arrays.copyOfRange(all, nKeys, all.length);
        Random random = new Random(42);
        try (PurgatoryUnderTest purgatory = PurgatoryUnderTest.create(impl, id() + "-" + impl.id())) {
            long f0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long delay = shape == Shape.TIMEOUTS ? TIMEOUT_MS / 2 + random.nextInt((int) TIMEOUT_MS) : TIMEOUT_MS;
                BenchKey key = nKeys == 1 ? keys[0] : keys[random.nextInt(nKeys)];
                purgatory.tryCompleteElseWatch(purgatory.newOperation(OpBody.NEVER, delay), key.asList());
            }
            long fillMs = (System.nanoTime() - f0) / 1_000_000;
            if (purgatory.numDelayed() != n) {
                log.printf("    %s: numDelayed() = %d, expected %d%n", impl.id(), purgatory.numDelayed(), n);
            }
            Probe.settle(sizes);
            long budget = sizes.listMillis() * 1_000_000L;
            Series oldest;
            Series due;
            if (purgatory instanceof OursPurgatory ours) {
                oldest = time(() -> ours.listPending(LIMIT, PendingOrder.OLDEST_FIRST).size(), budget, 100);
                due = time(() -> ours.listPending(LIMIT, PendingOrder.SOONEST_DUE_FIRST).size(), budget, 100);
                int listed = ours.listPending(LIMIT, PendingOrder.OLDEST_FIRST).size();
                if (listed != Math.min(LIMIT, n)) {
                    throw new IllegalStateException("listPending(" + LIMIT + ") returned " + listed);
                }
            } else {
                oldest = time(purgatory::watched, budget, 3); // the walk, once per order's row
                due = time(purgatory::watched, budget, 3);
            }
            recorder.record(oldestP50, oldest.p50Us());
            recorder.record(oldestP99, oldest.p99Us());
            recorder.record(oldestBytes, oldest.bytesPerCall());
            recorder.record(dueP50, due.p50Us());
            recorder.record(dueP99, due.p99Us());
            recorder.record(dueBytes, due.bytesPerCall());
            log.printf(Locale.ROOT, "    %s: %,d pending on %,d keys (filled in %,d ms); %s: oldest first %s;"
                            + " soonest due first %s%n", impl.id(), n, nKeys, fillMs,
                    impl == Impl.OURS ? "listPending(100)" : "watched() walk", oldest, due);
            if (shape == Shape.SPREAD) {
                probe(impl, purgatory, probeKeys, sizes, recorder, log);
            }
        }
        if (recorder != Results.Recorder.DISCARD && !explained && shape == Shape.SPREAD) {
            explained = true;
            results.note("Workload 13 (list cost, each shape): the Kafka column is Kafka's watched() gauge"
                    + " (PurgatorySize), which walks every watch list and counts each queue node by node: Kafka's"
                    + " purgatory has no list, and this walk is its nearest (its numDelayed() is the timer's"
                    + " counter, O(1)). Ratios are our listPending(100) over that walk. The probe rows: another"
                    + " thread's round trips (watch one operation on a key of its own, checkAndComplete it) alone,"
                    + " and while a third thread lists (ours) or walks (Kafka) in a loop.");
        }
    }

    /** The per-call times of {@code call}: {@code warmup} calls, then calls for {@code budget} ns (at most 5,000). */
    private Series time(IntSupplier call, long budget, int warmup) {
        long s = 0;
        long w0 = System.nanoTime();
        for (int i = 0; i < warmup || (warmup > 10 && System.nanoTime() - w0 < budget / 2); i++) {
            s += call.getAsInt();
        }
        long[] nanos = new long[MAX_CALLS];
        int calls = 0;
        long a0 = Probe.currentThreadAllocatedBytes();
        long t0 = System.nanoTime();
        long last = t0;
        while (calls < MAX_CALLS && (last - t0 < budget || calls < 10)) {
            s += call.getAsInt();
            long now = System.nanoTime();
            nanos[calls++] = now - last;
            last = now;
        }
        long allocated = Probe.currentThreadAllocatedBytes() - a0;
        sink = s;
        long[] sorted = Arrays.copyOf(nanos, calls);
        Arrays.sort(sorted);
        return new Series(sorted, (double) allocated / calls);
    }

    /** Sorted per-call times and the bytes allocated per call. */
    private static final class Series {
        private final long[] sorted;
        private final double bytesPerCall;

        Series(long[] sorted, double bytesPerCall) {
            this.sorted = sorted;
            this.bytesPerCall = bytesPerCall;
        }

        double bytesPerCall() {
            return bytesPerCall;
        }

        double p50Us() {
            return Probe.percentile(sorted, 0.50) / 1e3;
        }

        double p99Us() {
            return Probe.percentile(sorted, 0.99) / 1e3;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%,d calls, p50 %.1f us, p99 %.1f us, max %.1f us, %.0f B/call",
                    sorted.length, p50Us(), p99Us(), sorted[sorted.length - 1] / 1e3, bytesPerCall);
        }
    }

    /** The probe's round trips, alone and while a third thread lists, in four alternating phases. */
    private void probe(Impl impl, PurgatoryUnderTest purgatory, BenchKey[] probeKeys, Sizes sizes,
                       Results.Recorder recorder, PrintStream log) {
        Prober prober = new Prober(purgatory, probeKeys);
        long[] listings = new long[1];
        Runnable list = purgatory instanceof OursPurgatory ours
                ? () -> {
                    sink = (long) ours.listPending(LIMIT, PendingOrder.OLDEST_FIRST).size()
                            + ours.listPending(LIMIT, PendingOrder.SOONEST_DUE_FIRST).size();
                    listings[0] += 2;
                }
                : () -> {
                    sink = purgatory.watched();
                    listings[0]++;
                };
        Thread lister = Threads.start(id() + "-lister", () -> {
            while (prober.phase != Prober.DONE) {
                if (prober.phase == Prober.LISTING) {
                    list.run();
                } else {
                    Threads.sleepMillis(1);
                }
            }
        });
        Thread probing = Threads.start(id() + "-prober", prober);
        long phaseMillis = Math.max(50, sizes.listMillis() / 2);
        Threads.sleepMillis(phaseMillis); // the probe's own warm-up, not recorded
        for (int i = 0; i < 4; i++) {
            prober.phase = i % 2 == 0 ? Prober.ALONE : Prober.LISTING;
            Threads.sleepMillis(phaseMillis);
        }
        prober.phase = Prober.DONE;
        Threads.joinAll(probing, lister);
        if (prober.unanswered > 0) {
            throw new IllegalStateException(impl.id() + ": " + prober.unanswered + " probe operations not completed");
        }
        long[] alone = prober.sorted(Prober.ALONE);
        long[] listing = prober.sorted(Prober.LISTING);
        double aloneP99 = Probe.percentile(alone, 0.99) / 1e3;
        double listingP99 = Probe.percentile(listing, 0.99) / 1e3;
        double listingMax = listing.length == 0 ? Double.NaN : listing[listing.length - 1] / 1e3;
        recorder.record(probeAloneP99, aloneP99);
        recorder.record(probeListingP99, listingP99);
        recorder.record(probeListingMax, listingMax);
        recorder.record(probeRatio, listingP99 / aloneP99);
        log.printf(Locale.ROOT, "    %s probe: alone %,d round trips, p50 %.1f us, p99 %.1f us, max %.1f us; while"
                        + " listing (%,d %s) %,d round trips, p50 %.1f us, p99 %.1f us, max %.1f us%n", impl.id(),
                alone.length, Probe.percentile(alone, 0.5) / 1e3, aloneP99,
                alone.length == 0 ? Double.NaN : alone[alone.length - 1] / 1e3, listings[0],
                impl == Impl.OURS ? "lists" : "walks", listing.length, Probe.percentile(listing, 0.5) / 1e3,
                listingP99, listingMax);
    }

    /** Round trips on keys of its own, timed each and filed under the phase they began and ended in. */
    private static final class Prober implements Runnable {
        static final int ALONE = 0;
        static final int LISTING = 1;
        static final int DONE = 2;
        private static final int IDLE = -1;

        private final PurgatoryUnderTest purgatory;
        private final BenchKey[] keys;
        volatile int phase = IDLE;
        private final long[][] samples = {new long[1 << 16], new long[1 << 16]};
        private final int[] counts = new int[2];
        int unanswered;

        Prober(PurgatoryUnderTest purgatory, BenchKey[] keys) {
            this.purgatory = purgatory;
            this.keys = keys;
        }

        @Override
        public void run() {
            int j = 0;
            while (true) {
                int start = phase;
                if (start == DONE) {
                    return;
                }
                FanOutTarget.Release ready = new FanOutTarget.Release();
                long t0 = System.nanoTime();
                Completable op = purgatory.newOperation(new FanOutTarget.HotBody(ready, null), TIMEOUT_MS);
                purgatory.tryCompleteElseWatch(op, keys[j].asList());
                ready.released = true;
                purgatory.checkAndComplete(keys[j]);
                long nanos = System.nanoTime() - t0;
                if (!op.isCompleted()) {
                    unanswered++;
                }
                if (start != IDLE && phase == start) {
                    long[] a = samples[start];
                    if (counts[start] == a.length) {
                        samples[start] = a = Arrays.copyOf(a, a.length * 2);
                    }
                    a[counts[start]++] = nanos;
                }
                j = (j + 1) & (keys.length - 1);
            }
        }

        long[] sorted(int which) {
            long[] s = Arrays.copyOf(samples[which], counts[which]);
            Arrays.sort(s);
            return s;
        }
    }
}
