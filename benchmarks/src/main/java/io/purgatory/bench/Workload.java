package io.purgatory.bench;

import java.io.PrintStream;
import java.util.List;

/**
 * A workload the comparison runs on several implementations. The default {@link #runAll} warms
 * each implementation up once (full mode), then runs them alternately, A, B, A, B..., for the
 * given number of rounds; the table reports medians.
 */
abstract class Workload {

    private final String id;
    private final String title;
    private final List<Impl> impls;

    Workload(String id, String title, List<Impl> impls) {
        this.id = id;
        this.title = title;
        this.impls = impls;
    }

    /** The id used by {@code --only}. */
    final String id() {
        return id;
    }

    /** The title in the table's first column. */
    final String title() {
        return title;
    }

    /** The implementations compared, in the order they alternate. */
    List<Impl> impls() {
        return impls;
    }

    /** True if each run warms itself up (JMH forks do), so full mode adds no warm-up run. */
    boolean warmsUpItself() {
        return false;
    }

    /** One measured run of {@code impl}. */
    abstract void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) throws Exception;

    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        if (sizes.warmup() && !warmsUpItself()) {
            for (Impl impl : impls().stream().filter(options::runs).toList()) {
                log.printf("  warm-up %s%n", impl.id());
                runOnce(impl, sizes, Results.Recorder.DISCARD, log);
                Probe.settle(sizes);
            }
        }
        runRounds(sizes, options, results, log);
    }

    /** The measured rounds of {@link #runAll}, without the warm-up. */
    final void runRounds(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        List<Impl> impls = impls().stream().filter(options::runs).toList();
        int rounds = options.rounds();
        for (int round = 1; round <= rounds; round++) {
            for (Impl impl : impls) {
                log.printf("  round %d/%d %s, load %s%n", round, rounds, impl.id(), MachineInfo.loadAverage());
                runOnce(impl, sizes, results.recorder(impl), log);
                Probe.settle(sizes);
            }
            log.printf("  round %d/%d done, load %s%n", round, rounds, MachineInfo.loadAverage());
        }
    }
}
