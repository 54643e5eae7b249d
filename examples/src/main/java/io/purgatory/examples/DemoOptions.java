package io.purgatory.examples;

import java.util.List;

/**
 * The demo's command-line options: {@code --duration 20 --port 8080 --rate 2000 --producers 2
 * --consumers 2 --order-rate 100 --partitions 6 --timeout-ms 1000 --follower-lag-ms 5
 * --stall-every-s 8 --stall-s 3}.
 */
record DemoOptions(int durationSeconds, int port, int produceRate, int producers, int consumers, int orderRate,
                   int partitions, long timeoutMs, long followerLagMs, int stallEverySeconds, int stallSeconds,
                   boolean help) {

    static final String USAGE = """
            Usage: DemoServer [options]
              --duration S         how long to run, seconds (default 20; 0 = until stopped)
              --port P             HTTP port on 127.0.0.1 (default 8080; 0 = any free port)
              --rate R             produce requests per second, all producers together (default 2000)
              --producers N        producer clients (default 2)
              --consumers N        consumer clients doing long-poll fetches (default 2)
              --order-rate R       orders per second waiting for their payment (default 100; 0 = none)
              --partitions N       partitions of the topic "demo" (default 6)
              --timeout-ms T       produce request timeout (default 1000)
              --follower-lag-ms L  how far follower 1 lags the leader (default 5)
              --stall-every-s S    follower 2 stalls every S seconds (default 8; 0 = never)
              --stall-s S          for S seconds (default 3)
            """;

    private static final List<String> OPTIONS = List.of("--duration", "--port", "--rate", "--producers",
            "--consumers", "--order-rate", "--partitions", "--timeout-ms", "--follower-lag-ms", "--stall-every-s",
            "--stall-s");
    private static final int MAX = Integer.MAX_VALUE;

    /** The options in {@code args}; an IllegalArgumentException names a bad one and its value. */
    static DemoOptions parse(String... args) {
        CommandLine line = CommandLine.parse(args, OPTIONS);
        return new DemoOptions(line.intValue("--duration", 20, 0, MAX), line.intValue("--port", 8080, 0, 65535),
                line.intValue("--rate", 2000, 1, MAX), line.intValue("--producers", 2, 0, MAX),
                line.intValue("--consumers", 2, 0, MAX), line.intValue("--order-rate", 100, 0, 10_000),
                line.intValue("--partitions", 6, 1, MAX), line.intValue("--timeout-ms", 1000, 0, MAX),
                line.intValue("--follower-lag-ms", 5, 0, MAX), line.intValue("--stall-every-s", 8, 0, MAX),
                line.intValue("--stall-s", 3, 0, MAX), line.help());
    }
}
