package io.purgatory.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Workload 2 in a fresh JVM: each round forks a new JVM per implementation (this jar's hidden
 * {@code expiration-burst} command) that runs workload 2's burst first thing, on a brand-new
 * purgatory, with nothing loaded or compiled yet, and prints its figures. No warm-up: the cold
 * start is what is measured. The bars ask ours to be no worse than Kafka's at p99 and p99.9
 * (the median of the per-round ratios).
 */
final class ColdExpirationWorkload extends Workload {

    static final String TITLE = "2 expiration, cold JVM (purgatory)";
    static final Metric INSERT_RATE = new Metric(TITLE, ExpirationWorkload.INSERT_RATE.name());
    static final LatenessTracker.Metrics METRICS = LatenessTracker.Metrics.of(TITLE,
            Bar.atMostFractionOfKafka(1), Bar.atMostFractionOfKafka(1), true);
    static final GcPauses.Metrics GC = GcPauses.Metrics.of(TITLE);
    /** The hidden command of {@link Main} that runs one child. */
    static final String CHILD_COMMAND = "expiration-burst";
    private static final String RESULT_PREFIX = "result\t";

    private final Map<Impl, List<String>> perRound = new EnumMap<>(Impl.class);

    ColdExpirationWorkload() {
        super("cold", TITLE, List.of(Impl.OURS, Impl.KAFKA));
    }

    /** The child's side: workload 2's burst on {@code args[0]}, sized by the other arguments; results on stdout. */
    static int child(String... args) {
        if (args.length != 5) {
            System.err.println("usage: " + CHILD_COMMAND + " IMPL OPS MIN_MS MAX_MS KEYS");
            return 2;
        }
        Impl impl = Impl.of(args[0]);
        Results.Recorder printer = (metric, value) -> System.out.println(RESULT_PREFIX + metric.name() + '\t' + value);
        try (GcPauses pauses = GcPauses.start()) {
            ExpirationWorkload.burst(impl, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]), Integer.parseInt(args[4]), printer, System.err);
            pauses.report(GC, printer);
        }
        System.out.flush();
        return 0;
    }

    /** Rounds only: a warm-up would warm nothing, each run being a JVM of its own. Then a note of every round. */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        runRounds(sizes, options, results, log);
        StringBuilder note = new StringBuilder("Cold JVM rounds (workload 2's burst first thing in a fresh JVM),"
                + " lateness p99 / p99.9 ms per round:");
        perRound.forEach((impl, rounds) -> note.append(' ').append(impl.id()).append(' ')
                .append(String.join(", ", rounds)).append(';'));
        note.setLength(note.length() - 1);
        results.note(note.append('.').toString());
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) throws IOException,
            InterruptedException {
        List<String> args = List.of(CHILD_COMMAND, impl.id(), String.valueOf(sizes.expirationOps()),
                String.valueOf(sizes.expirationMinMs()), String.valueOf(sizes.expirationMaxMs()),
                String.valueOf(sizes.expirationKeys()));
        Process child = new ProcessBuilder(Main.childCommand(args)).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Map<String, Double> values = new HashMap<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(RESULT_PREFIX)) {
                    String[] f = line.split("\t");
                    values.put(f[1], Double.parseDouble(f[2]));
                }
            }
        }
        int exit = child.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("the " + CHILD_COMMAND + " child of " + impl.id() + " exited with " + exit);
        }
        List<Metric> ours = new ArrayList<>(List.of(INSERT_RATE));
        ours.addAll(METRICS.all());
        ours.addAll(List.of(GC.count(), GC.totalMs(), GC.longestMs()));
        for (Metric metric : ours) {
            Double value = values.get(metric.name());
            if (value == null) {
                throw new IllegalStateException("the " + CHILD_COMMAND + " child reported no '" + metric.name() + "'");
            }
            recorder.record(metric, value);
        }
        if (recorder != Results.Recorder.DISCARD) {
            String p99 = Results.format(values.get(METRICS.p99().name()));
            String p999 = Results.format(values.get(METRICS.p999().name()));
            perRound.computeIfAbsent(impl, i -> new ArrayList<>()).add(p99 + " / " + p999);
        }
    }
}
