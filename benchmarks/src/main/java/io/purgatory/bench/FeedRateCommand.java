package io.purgatory.bench;

import io.purgatory.testbroker.KafkaBroker;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The {@code feed-rate} command: starts a single-node broker (a child JVM on loopback, as
 * {@link FeedBench}), creates the two topics with the broker's append time as record timestamp,
 * runs {@link FeedRateWorkload} and prints its table, as compare does.
 * <pre>
 * java -Xmx2g -jar benchmarks.jar feed-rate [--rates 1000,5000,10000] [--seconds 10] [--rounds 3]
 *      [--linger-ms 5] [--pending 10000] [--partitions 3] [--quick]
 * </pre>
 * {@code --quick}: 200 and 1,000 events/s, 1 s each, one round, no warm-up, 1,000 other waits
 * (a smoke run: its figures mean nothing).
 */
final class FeedRateCommand {

    static final String USAGE = "feed-rate [--rates 1000,5000,10000] [--seconds 10] [--rounds 3] [--linger-ms 5]"
            + " [--pending 10000] [--partitions 3] [--quick]";

    private FeedRateCommand() {
    }

    static int run(String[] args, PrintStream out, PrintStream log) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        List<Integer> rates = quick ? List.of(200, 1_000) : List.of(1_000, 5_000, 10_000);
        int seconds = quick ? 1 : 10;
        Integer rounds = null;
        int lingerMs = 5; // the Kafka 4 client's default
        int pending = quick ? 1_000 : 10_000;
        int partitions = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> { }
                case "--rates" -> {
                    rates = new ArrayList<>();
                    for (String r : value(args, ++i).split(",")) {
                        rates.add(positive("--rates", Integer.parseInt(r)));
                    }
                }
                case "--seconds" -> seconds = positive("--seconds", Integer.parseInt(value(args, ++i)));
                case "--rounds" -> rounds = positive("--rounds", Integer.parseInt(value(args, ++i)));
                case "--linger-ms" -> lingerMs = Integer.parseInt(value(args, ++i));
                case "--pending" -> pending = Integer.parseInt(value(args, ++i));
                case "--partitions" -> partitions = positive("--partitions", Integer.parseInt(value(args, ++i)));
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'; usage: " + USAGE);
            }
        }
        CompareOptions options = new CompareOptions(quick, rounds != null ? rounds : quick ? 1 : 3, Set.of(),
                Set.of(), List.of(), List.of(), Set.of(), 0, false);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = MachineInfo.loadAverage();
        Results results = new Results();
        try (KafkaBroker broker = KafkaBroker.builder()
                .jvmOptions(List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC")).start()) {
            createTopics(broker, partitions);
            log.printf("broker on %s, topics %s and %s of %d partitions (LogAppendTime), load %s%n",
                    broker.bootstrapServers(), FeedRateWorkload.FEED_TOPIC, FeedRateWorkload.PLAIN_TOPIC, partitions,
                    MachineInfo.loadAverage());
            try (FeedRateWorkload workload = new FeedRateWorkload(broker.bootstrapServers(), rates, seconds,
                    quick ? 0 : Math.min(seconds, 3), lingerMs, pending)) {
                workload.start(log);
                workload.runAll(quick ? Sizes.quick() : Sizes.full(), options, results, log);
            }
        }
        out.print("Run " + started + ", feed-rate, " + (quick ? "QUICK (smoke size, not a measurement), " : "")
                + "medians of " + options.rounds() + " alternating round(s).\n"
                + "Machine: " + MachineInfo.describe() + ".\n"
                + "Load average (1 min) at start " + loadBefore + ", at end " + MachineInfo.loadAverage() + ".\n"
                + "Broker: a single-node KRaft broker in a child JVM (-Xmx1g, G1) on loopback; " + partitions
                + " partitions; events of " + seconds + " s per rate; " + pending
                + " other waits pending on each instance.\n\n"
                + results.markdownTable());
        for (String note : results.notes()) {
            out.print("\n" + note + "\n");
        }
        out.flush();
        return 0;
    }

    /** Both topics, with the broker's append time as each record's timestamp (the split of the latency reads it). */
    private static void createTopics(KafkaBroker broker, int partitions) throws Exception {
        Map<String, String> appendTime = Map.of("message.timestamp.type", "LogAppendTime");
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(
                    new NewTopic(FeedRateWorkload.FEED_TOPIC, partitions, (short) 1).configs(appendTime),
                    new NewTopic(FeedRateWorkload.PLAIN_TOPIC, partitions, (short) 1).configs(appendTime)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    private static int positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be >= 1: " + value);
        }
        return value;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value; usage: " + USAGE);
        }
        return args[i];
    }
}
