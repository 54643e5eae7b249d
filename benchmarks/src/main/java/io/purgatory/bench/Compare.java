package io.purgatory.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The {@code compare} command: runs the selected workloads, each on its implementations in
 * alternation, and returns the report (a markdown table of medians, then notes). Progress goes
 * to {@code log}.
 */
public final class Compare {

    /**
     * The Java priority of the thread running the workloads, which every thread of the run inherits
     * (each implementation's timer and executors, the harness's), set after the background load has
     * started at normal priority; Linux applies it only under {@code -XX:ThreadPriorityPolicy=1} as root.
     */
    static final String PRIORITY = "bench.priority";

    /** The back-pressure bound of ours in the overload workload. */
    static final Duration BACK_PRESSURE = Duration.ofMillis(10);

    private Compare() {
    }

    /** All workloads, in table order. */
    static List<Workload> workloads(Results results) {
        return List.of(new AckWorkload(), new ExpirationWorkload(), new TimerExpirationWorkload(),
                ExpirationLoadWorkload.fullSpeed(), ExpirationLoadWorkload.fullSpeed(BACK_PRESSURE),
                ExpirationLoadWorkload.paced(200_000), ExpiryCapacityWorkload.purgatory(),
                ExpiryCapacityWorkload.timer(),
                new ColdExpirationWorkload(),
                new MemoryWorkload(results), new ChurnWorkload(), PerfWorkload.lowTimeout(),
                PerfWorkload.highTimeout(), new JmhWorkload(), new HotKeyWorkload(), new KeyedWaitsWorkload(results),
                new ScalingWorkload(), FanOutWorkload.purgatory(), FanOutWorkload.keyedWaits(),
                ListCostWorkload.spread(results), ListCostWorkload.timeouts(results), ListCostWorkload.hot(results),
                new TenantWorkload(results));
    }

    /** Runs the comparison; returns the report as markdown. */
    public static String run(CompareOptions options, PrintStream log) throws Exception {
        Sizes sizes = options.quick() ? Sizes.quick() : Sizes.full();
        Results results = new Results();
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = MachineInfo.loadAverage();
        int priority = Thread.currentThread().getPriority();
        try (BackgroundLoad background = BackgroundLoad.start(options.backgroundLoad(),
                options.backgroundOwnSession(), log)) {
            Thread.currentThread().setPriority(Integer.getInteger(PRIORITY, priority)); // after the fork
            for (Workload workload : workloads(results)) {
                if (!options.selects(workload.id())) {
                    continue;
                }
                log.printf("== %s (%s), load %s%n", workload.title(), workload.id(), MachineInfo.loadAverage());
                long t0 = System.nanoTime();
                workload.runAll(sizes, options, results, log);
                log.printf("   %s took %d s, load %s%n", workload.id(), (System.nanoTime() - t0) / 1_000_000_000L,
                        MachineInfo.loadAverage());
                if (background.threads() > 0 && !background.isAlive()) {
                    throw new IllegalStateException("the background load's JVM ended during " + workload.id());
                }
            }
        } finally {
            Thread.currentThread().setPriority(priority);
        }
        StringBuilder report = new StringBuilder();
        report.append("Run ").append(start).append(", ")
                .append(options.quick() ? "QUICK (smoke size, not a measurement)" : "full")
                .append(" mode, medians of ").append(options.rounds()).append(" alternating round(s).\n")
                .append("Machine: ").append(MachineInfo.describe()).append(".\n")
                .append("Load average (1 min) at start ").append(loadBefore).append(", at end ")
                .append(MachineInfo.loadAverage()).append(".\n")
                .append(options.backgroundLoad() == 0 ? ""
                        : "Background load (--background-load): " + options.backgroundLoad()
                        + " busy thread(s) in a child JVM"
                        + (options.backgroundOwnSession() ? " of its own session" : "")
                        + ", for the whole run.\n")
                .append('\n')
                .append(results.markdownTable());
        for (String note : results.notes()) {
            report.append('\n').append(note).append('\n');
        }
        return report.toString();
    }
}
