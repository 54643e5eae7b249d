package io.purgatory.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of {@code benchmarks.jar}:
 * <pre>
 * java -jar benchmarks.jar compare [--quick] [--rounds N] [--only id,...] [--impls id,...]
 * java -jar benchmarks.jar compare --only keyed --rounds 3   (keyed waits against a map of futures alone)
 * java -jar benchmarks.jar jmh [JMH options]            (forwarded to org.openjdk.jmh.Main)
 * java -jar benchmarks.jar feed [--events N --pending N --rate R --seconds S]   (the Kafka feed, FeedBench)
 * java -jar benchmarks.jar settle [operations [threads [repetitions]]]   (the settle of an expiry alone, SettleCost)
 * java -jar benchmarks.jar vthreads [--waits N --rounds N]   (JDK 21+: virtual threads blocked on keyed waits)
 * java -jar benchmarks.jar feed-rate [--rates R,... --seconds S --rounds N]   (two feeds on a local broker)
 * </pre>
 * {@code compare} runs in a child JVM with a fixed heap ({@value #HEAP}, so that the System.gc()
 * between runs cannot shrink the heap and leave the next run to regrow it), unless the heap was
 * set on the command line or {@code -Dbench.inProcess=true} is given. Other JVM options of the
 * command line (e.g. a JFR recording) are passed on to the child. The cold workload forks one more
 * JVM per round the same way, running the hidden command {@code expiration-burst};
 * {@code --background-load N} one more for the whole run, {@link BackgroundLoad}'s.
 */
public final class Main {

    static final String HEAP = "4g";
    private static final String IN_PROCESS = "bench.inProcess";

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        switch (command) {
            case "compare" -> System.exit(compare(rest));
            case "jmh" -> org.openjdk.jmh.Main.main(rest);
            case "feed" -> System.exit(FeedBench.run(rest));
            case "vthreads" -> System.exit(vthreads(rest));
            case "feed-rate" -> System.exit(FeedRateCommand.run(rest, System.out, System.err));
            case SettleCost.COMMAND -> System.exit(SettleCost.run(rest));
            case ColdExpirationWorkload.CHILD_COMMAND -> System.exit(ColdExpirationWorkload.child(rest));
            case BackgroundLoad.CHILD_COMMAND -> System.exit(BackgroundLoad.child(rest));
            default -> {
                System.err.println("usage: java -jar benchmarks.jar " + CompareOptions.USAGE);
                System.err.println("       java -jar benchmarks.jar compare --only keyed --rounds 3"
                        + "   (keyed waits against a map of futures alone)");
                System.err.println("       java -jar benchmarks.jar jmh [JMH options, e.g. -f 1 -wi 3 -i 5 -prof gc]");
                System.err.println("       java -jar benchmarks.jar " + SettleCost.USAGE);
                System.err.println("       java -jar benchmarks.jar " + VirtualThreadsWorkload.USAGE + "   (JDK 21+)");
                System.err.println("       java -jar benchmarks.jar " + FeedRateCommand.USAGE);
                System.exit(command.isEmpty() || command.equals("--help") ? 0 : 2);
            }
        }
    }

    /** The vthreads command, in a child JVM with the fixed heap as compare (unless a heap is given). */
    private static int vthreads(String[] args) throws Exception {
        List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
        boolean heapGiven = jvmArgs.stream().anyMatch(a -> a.startsWith("-Xmx") || a.startsWith("-Xms"));
        if (Boolean.getBoolean(IN_PROCESS) || heapGiven || !VirtualThreadsWorkload.available()) {
            return VirtualThreadsWorkload.command(args, System.out, System.err);
        }
        List<String> child = childCommand(List.of("vthreads"));
        child.addAll(Arrays.asList(args));
        return new ProcessBuilder(child).inheritIO().start().waitFor();
    }

    private static int compare(String[] args) throws Exception {
        CompareOptions options = CompareOptions.parse(args); // fail fast, before forking
        List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
        boolean heapGiven = jvmArgs.stream().anyMatch(a -> a.startsWith("-Xmx") || a.startsWith("-Xms"));
        if (Boolean.getBoolean(IN_PROCESS) || heapGiven) {
            System.out.print(Compare.run(options, System.err));
            System.out.flush();
            return 0; // exit(0) in main: a baseline thread left behind must not keep the JVM up
        }
        List<String> child = childCommand(List.of("compare"));
        child.addAll(Arrays.asList(args));
        return new ProcessBuilder(child).inheritIO().start().waitFor();
    }

    /**
     * The command line of a child JVM running this jar's {@code Main} with {@code mainArgs}: this
     * JVM's options (a JFR recording or GC log too: name its file with {@code %p}), the fixed heap
     * unless one was given, and in-process mode.
     */
    static List<String> childCommand(List<String> mainArgs) {
        List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<String> child = new ArrayList<>();
        child.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        child.addAll(jvmArgs);
        if (jvmArgs.stream().noneMatch(a -> a.startsWith("-Xmx") || a.startsWith("-Xms"))) {
            child.addAll(List.of("-Xms" + HEAP, "-Xmx" + HEAP));
        }
        if (!jvmArgs.contains("-D" + IN_PROCESS + "=true")) {
            child.add("-D" + IN_PROCESS + "=true");
        }
        child.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        child.addAll(mainArgs);
        return child;
    }
}
