package io.purgatory.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Workload 2's expiry capacity: a ladder of insert rates, each step one thread inserting operations
 * that never complete (one key of 1000, timeouts uniform in 100..1100 ms) at that rate for a few
 * seconds while they expire, on a new purgatory (see {@link ExpirationLoadWorkload#run}). A step
 * passes if the inserter kept up (at least {@value #KEPT_UP} of the rate), nothing was lost or
 * fired twice, and the lateness p99 of the operations due by the end of the inserts is at most
 * {@value #P99_BOUND_MS} ms. A failed step runs once more (a shared machine has hiccups of its own),
 * and the capacity is the highest rate passed before a step fails twice; each step's p99 (the
 * retry's, if any) gets a row, and a note lists every round's ladder. Early expiries do not fail a
 * step (Kafka's timer fires up to a tick early by design): a row counts them over the ladder. The
 * step at {@value #TAIL_RATE} inserts/s (or the ladder's last) also gets its tails: p99.9, p99.99,
 * the p99.99 of lateness over delay, and the share of expiries later than max(1 ms, 6.25% of the
 * delay), with the bar that at most 0.01% are. Each round records the median over its steps of the
 * bytes allocated per insert. The purgatory ladder runs a third participant without a column, the
 * {@link AllocationFloor}, whose allocation per insert is set to ours' as measured in the same run
 * ({@link #calibrateFloor}); a note gives its figures.
 */
final class ExpiryCapacityWorkload extends Workload {

    static final double P99_BOUND_MS = 10;
    static final double KEPT_UP = 0.95;
    /** The rate of the warm-up step (full mode), for each implementation. */
    private static final int WARM_UP_RATE = 400_000;
    /** The rate whose lateness tails (p99.9, p99.99, relative to the delay) get rows, if the ladder has it. */
    static final int TAIL_RATE = 1_000_000;
    /** The rate of the steps that measure ours' allocation per insert for the allocation floor. */
    private static final int CALIBRATION_RATE = 200_000;
    /** The bar on the share of expiries later than max(1 ms, 6.25% of the delay): p99.99 within it. */
    static final Bar TAIL_BAR = new Bar("<= 0.01 (p99.99 within max(1 ms, 6.25% of delay))",
            m -> m.get(Impl.OURS) <= 0.01, null);

    private final boolean timerLevel;
    private final Metric capacity;
    private final Metric early;
    private final Metric allocated;
    private final Map<Integer, Metric> p99ByRate = new LinkedHashMap<>();
    private final Map<Impl, List<String>> ladders = new EnumMap<>(Impl.class);
    private List<Integer> rates = List.of();
    private boolean stopsAtFailure;
    private int tailRate;
    private List<Metric> tails = List.of();
    /** The allocation floor's filler per insert, in bytes, once calibrated against ours. */
    private int floorFillerBytes;

    private ExpiryCapacityWorkload(String id, String title, boolean timerLevel, Bar bar) {
        super(id, title, timerLevel ? List.of(Impl.OURS, Impl.KAFKA)
                : List.of(Impl.OURS, Impl.KAFKA, Impl.ALLOC_FLOOR));
        this.timerLevel = timerLevel;
        this.capacity = new Metric(title, "capacity: highest inserts/s with p99 <= 10 ms", bar);
        this.early = new Metric(title, "fired early, every step", timerLevel ? Bar.NONE : Bar.zero());
        this.allocated = new Metric(title, "allocated B/insert, all threads (median of the steps)");
    }

    /** Through the purgatories, the bar: at least 2M inserts/s and 10x Kafka's. */
    static ExpiryCapacityWorkload purgatory() {
        return new ExpiryCapacityWorkload("expiration-capacity", "2 expiry capacity (purgatory)", false,
                Bar.both(Bar.atLeast(2_000_000), Bar.atLeastTimesKafka(10)));
    }

    /** The timers alone (ours and Kafka's SystemTimer, each with its one executor thread): what the timer sustains. */
    static ExpiryCapacityWorkload timer() {
        return new ExpiryCapacityWorkload("expiration-capacity-timer", "2 expiry capacity (timer)", true, Bar.NONE);
    }

    /** A warm-up step per implementation (full mode), the rounds, then a note of every round's ladder. */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        rates = options.rates().isEmpty() ? sizes.capacityRates() : options.rates();
        stopsAtFailure = options.rates().isEmpty() && sizes.capacityStopsAtFailure(); // --rates: every step runs
        for (int rate : rates) {
            p99ByRate.put(rate, new Metric(title(), String.format(Locale.ROOT, "lateness p99 at %,d inserts/s (ms)",
                    rate)));
        }
        tailRate = rates.contains(TAIL_RATE) ? TAIL_RATE : rates.get(rates.size() - 1);
        String at = String.format(Locale.ROOT, " at %,d inserts/s", tailRate);
        tails = List.of(new Metric(title(), "lateness p99.9" + at + " (ms)"),
                new Metric(title(), "lateness p99.99" + at + " (ms)"),
                new Metric(title(), "lateness/delay p99.99" + at + " (%)"),
                new Metric(title(), "later than max(1 ms, 6.25% of delay)" + at + " (% of expiries)",
                        timerLevel ? Bar.NONE : TAIL_BAR));
        if (sizes.warmup()) {
            for (Impl impl : impls().stream().filter(options::runs).filter(i -> i != Impl.ALLOC_FLOOR).toList()) {
                log.printf("  warm-up %s%n", impl.id());
                step(impl, WARM_UP_RATE, sizes, log);
                Probe.settle(sizes);
            }
        }
        if (impls().contains(Impl.ALLOC_FLOOR) && options.runs(Impl.ALLOC_FLOOR)) {
            calibrateFloor(sizes, results, log); // after the warm-up: its two steps are the floor's
        }
        runRounds(sizes, options, results, log);
        StringBuilder note = new StringBuilder(title()).append(", every round (rate: p99 ms; a failed step is marked"
                + " with why and run once more, and a second failure ends the ladder): ");
        ladders.forEach((impl, rounds) -> note.append(impl.id()).append(": ").append(String.join("; ", rounds))
                .append(". "));
        results.note(note.toString().trim());
        if (results.medians(capacity).containsKey(Impl.ALLOC_FLOOR)) {
            List<Metric> described = new ArrayList<>(List.of(capacity, allocated));
            described.addAll(p99ByRate.values());
            results.note(title() + ", " + Impl.ALLOC_FLOOR.label() + ", see AllocationFloor: " + results.describe(
                    Impl.ALLOC_FLOOR, described, List.of(Impl.OURS, Impl.KAFKA)) + ".");
        }
    }

    /**
     * Sets the allocation floor's filler to what ours allocates per insert beyond the floor's own
     * allocation (the harness's body and logs), each measured in one step at {@value #CALIBRATION_RATE}
     * inserts/s; notes both.
     */
    private void calibrateFloor(Sizes sizes, Results results, PrintStream log) {
        log.printf("  calibrating the allocation floor against ours at %,d inserts/s%n", CALIBRATION_RATE);
        floorFillerBytes = 0;
        double ours = step(Impl.OURS, CALIBRATION_RATE, sizes, log).allocatedPerInsert();
        Probe.settle(sizes);
        double floorAlone = step(Impl.ALLOC_FLOOR, CALIBRATION_RATE, sizes, log).allocatedPerInsert();
        Probe.settle(sizes);
        floorFillerBytes = (int) Math.max(0, Math.round(ours - floorAlone));
        results.note(String.format(Locale.ROOT, "%s: the allocation floor allocates per insert its own %.0f B (the"
                + " harness's body and fire log, as for every implementation) and a byte[] of %d B, kept until its"
                + " deadline: ours' %.0f B per insert, each measured in one step at %,d inserts/s (all Java threads,"
                + " first insert to last expiry).", title(), floorAlone, floorFillerBytes, ours, CALIBRATION_RATE));
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        int best = 0;
        int firedEarly = 0;
        boolean failed = false;
        String loadAtStart = MachineInfo.loadAverage();
        List<String> ladder = new ArrayList<>();
        List<Double> allocations = new ArrayList<>();
        for (int rate : rates) {
            ExpirationLoadWorkload.LoadRun run = step(impl, rate, sizes, log);
            Probe.settle(sizes);
            String failure = failure(run);
            firedEarly += run.lateness().early();
            String retried = "";
            if (!failure.isEmpty() && stopsAtFailure) { // a second chance: the machine is shared
                retried = String.format(Locale.ROOT, " (%s), retried:", failure);
                log.printf("    %s failed (%s): once more%n", shortRate(rate), failure);
                run = step(impl, rate, sizes, log);
                Probe.settle(sizes);
                failure = failure(run);
                firedEarly += run.lateness().early();
            }
            recorder.record(p99ByRate.get(rate), run.lateness().p99Ms());
            allocations.add(run.allocatedPerInsert());
            if (rate == tailRate) {
                LatenessTracker.Summary s = run.lateness();
                recorder.record(tails.get(0), s.p999Ms());
                recorder.record(tails.get(1), s.p9999Ms());
                recorder.record(tails.get(2), s.ofDelayP9999Percent());
                recorder.record(tails.get(3), s.overBoundPercent());
            }
            ladder.add(String.format(Locale.ROOT, "%s%s %s%s", shortRate(rate), retried,
                    Results.format(run.lateness().p99Ms()), failure.isEmpty() ? "" : " (" + failure + ")"));
            if (failure.isEmpty() && !failed) {
                best = rate;
            }
            failed |= !failure.isEmpty();
            if (failed && stopsAtFailure) {
                break;
            }
        }
        recorder.record(capacity, best);
        recorder.record(early, firedEarly);
        recorder.record(allocated, Probe.median(allocations));
        if (recorder != Results.Recorder.DISCARD) {
            ladders.computeIfAbsent(impl, i -> new ArrayList<>()).add(String.format(Locale.ROOT, "(load %s-%s) %s",
                    loadAtStart, MachineInfo.loadAverage(), String.join(", ", ladder)));
        }
    }

    private ExpirationLoadWorkload.LoadRun step(Impl impl, int rate, Sizes sizes, PrintStream log) {
        int maxOps = (int) Math.min(Integer.MAX_VALUE - 8, (long) rate * sizes.capacityStepMillis() / 1000 + 1_000);
        String name = id() + "-" + impl.id();
        ExpirationLoadWorkload.Target target = timerLevel ? ExpirationLoadWorkload.Target.timer(impl, name)
                : impl == Impl.ALLOC_FLOOR ? new AllocationFloor(name, floorFillerBytes)
                : ExpirationLoadWorkload.Target.purgatory(impl, name, BenchKey.range(sizes.expirationKeys()), null);
        ExpirationLoadWorkload.LoadRun run = ExpirationLoadWorkload.run(target, impl, name, rate,
                sizes.capacityStepMillis(), maxOps, sizes);
        log.printf("    %s%n", run.describe());
        return run;
    }

    /** Why a step failed, or "" if it passed. */
    private static String failure(ExpirationLoadWorkload.LoadRun run) {
        if (run.lateness().lost() > 0 || run.lateness().twice() > 0) {
            return "lost or fired twice";
        }
        if (run.insertRate() < KEPT_UP * run.targetRate()) {
            return String.format(Locale.ROOT, "inserted %s/s", shortRate((int) run.insertRate()));
        }
        return run.lateness().p99Ms() <= P99_BOUND_MS ? "" : "p99";
    }

    private static String shortRate(int rate) {
        return rate >= 1_000_000 ? String.format(Locale.ROOT, "%.2fM", rate / 1e6).replace(".00M", "M")
                : String.format(Locale.ROOT, "%dk", rate / 1000);
    }
}
