package io.purgatory.examples;

/**
 * The demo's command-line options: {@code --duration 20 --port 8080 --rate 2000 --producers 2
 * --consumers 2 --partitions 6 --timeout-ms 1000 --follower-lag-ms 5 --stall-every-s 8 --stall-s 3}.
 */
record DemoOptions(int durationSeconds, int port, int produceRate, int producers, int consumers, int partitions,
                   long timeoutMs, long followerLagMs, int stallEverySeconds, int stallSeconds, boolean help) {

    static final String USAGE = """
            Usage: DemoServer [options]
              --duration S         how long to run, seconds (default 20; 0 = until stopped)
              --port P             HTTP port on 127.0.0.1 (default 8080; 0 = any free port)
              --rate R             produce requests per second, all producers together (default 2000)
              --producers N        producer clients (default 2)
              --consumers N        consumer clients doing long-poll fetches (default 2)
              --partitions N       partitions of the topic "demo" (default 6)
              --timeout-ms T       produce request timeout (default 1000)
              --follower-lag-ms L  how far follower 1 lags the leader (default 5)
              --stall-every-s S    follower 2 stalls every S seconds (default 8; 0 = never)
              --stall-s S          for S seconds (default 3)
            """;

    static DemoOptions parse(String... args) {
        int duration = 20;
        int port = 8080;
        int rate = 2000;
        int producers = 2;
        int consumers = 2;
        int partitions = 6;
        long timeout = 1000;
        long lag = 5;
        int stallEvery = 8;
        int stall = 3;
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--help") || name.equals("-h")) {
                help = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + name + " needs a value");
            }
            String value = args[++i];
            switch (name) {
                case "--duration" -> duration = intValue(name, value, 0);
                case "--port" -> port = intValue(name, value, 0);
                case "--rate" -> rate = intValue(name, value, 1);
                case "--producers" -> producers = intValue(name, value, 0);
                case "--consumers" -> consumers = intValue(name, value, 0);
                case "--partitions" -> partitions = intValue(name, value, 1);
                case "--timeout-ms" -> timeout = intValue(name, value, 0);
                case "--follower-lag-ms" -> lag = intValue(name, value, 0);
                case "--stall-every-s" -> stallEvery = intValue(name, value, 0);
                case "--stall-s" -> stall = intValue(name, value, 0);
                default -> throw new IllegalArgumentException("unknown option: " + name);
            }
        }
        if (port > 65535) {
            throw new IllegalArgumentException("--port must be at most 65535: " + port);
        }
        return new DemoOptions(duration, port, rate, producers, consumers, partitions, timeout, lag, stallEvery,
                stall, help);
    }

    private static int intValue(String name, String value, int min) {
        int v;
        try {
            v = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer: '" + value + "'");
        }
        if (v < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ": " + v);
        }
        return v;
    }
}
