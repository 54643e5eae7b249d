package io.purgatory.examples;

import io.purgatory.testbroker.KafkaBroker;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Waits across instances: a single-node Kafka broker (a child JVM, from Maven Central's Kafka
 * artifacts) and {@code --instances} instances of a payment service, each with its own keyed
 * waits fed by its own feed of the topic {@code payments}. A long poll on one instance is
 * answered by a payment posted to another, through the broker. Options: {@code --instances 2
 * --port 8081 --duration 120 --bootstrap host:port} (instance i listens on port + i - 1; with
 * {@code --bootstrap} no broker is started, so a second process can join the first one's).
 */
public final class TwoInstanceDemo implements AutoCloseable {

    static final String TOPIC = "payments";
    static final String USAGE = """
            Usage: TwoInstanceDemo [options]
              --instances N    instances of the payment service (default 2, at most 100)
              --port P         port of the first instance on 127.0.0.1; the others follow (default 8081; 0 = any)
              --duration S     how long to run, seconds (default 120; 0 = until stopped)
              --bootstrap B    use the broker at B (host:port) instead of starting one
            """;

    private static final List<String> OPTIONS = List.of("--instances", "--port", "--duration", "--bootstrap");

    private final KafkaBroker broker;
    private final List<PaymentInstance> instances = new ArrayList<>();
    private final CountDownLatch finished = new CountDownLatch(1);

    private TwoInstanceDemo(int count, int firstPort, String bootstrap) throws IOException {
        this.broker = bootstrap == null ? KafkaBroker.builder().start() : null;
        String servers = broker != null ? broker.bootstrapServers() : bootstrap;
        try {
            if (broker != null) {
                broker.createTopic(TOPIC, 3);
            }
            for (int i = 1; i <= count; i++) {
                instances.add(new PaymentInstance(servers, TOPIC, firstPort == 0 ? 0 : firstPort + i - 1));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Starts the broker (unless {@code bootstrap} names one) and {@code count} instances. */
    static TwoInstanceDemo start(int count, int firstPort, String bootstrap) throws IOException {
        return new TwoInstanceDemo(count, firstPort, bootstrap);
    }

    List<PaymentInstance> instances() {
        return instances;
    }

    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** Runs the demo; exits with status 2 on bad options, 1 if an instance cannot listen on its port. */
    public static void main(String[] args) throws InterruptedException {
        int status = launch(System.out, System.err, args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Parses {@code args} and runs the demo for its duration, or until the JVM is asked to stop
     * (SIGTERM, Ctrl-C): either way it closes the instances, so each waiting long poll gets its
     * answer, then the broker. Returns the exit status: 0, 2 for bad options (usage on {@code err}),
     * 1 if a port is taken.
     */
    static int launch(PrintStream out, PrintStream err, String... args) throws InterruptedException {
        int count;
        int port;
        int duration;
        String bootstrap;
        CommandLine options;
        try {
            options = CommandLine.parse(args, OPTIONS);
            count = options.intValue("--instances", 2, 1, 100);
            port = options.intValue("--port", 8081, 0, 65535 - count + 1);
            duration = options.intValue("--duration", 120, 0, Integer.MAX_VALUE);
            bootstrap = options.value("--bootstrap", null);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.print(USAGE);
            return 2;
        }
        if (options.help()) {
            out.print(USAGE);
            return 0;
        }
        TwoInstanceDemo demo;
        try {
            demo = start(count, port, bootstrap);
        } catch (IOException e) {
            err.println("cannot start the demo (instances from port " + port + "): " + e);
            return 1;
        }
        Thread onStop = new Thread(() -> demo.finish(out), "two-instance-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(onStop);
        out.println(demo.banner(duration));
        if (duration == 0) {
            demo.finished.await();
        } else {
            demo.finished.await(duration, TimeUnit.SECONDS);
        }
        demo.finish(out);
        try {
            Runtime.getRuntime().removeShutdownHook(onStop);
        } catch (IllegalStateException shuttingDown) {
            // the hook has run or is running: finish() has printed once
        }
        return 0;
    }

    /** Ends the demo once, whoever calls first (the end of its duration, or the shutdown hook). */
    synchronized void finish(PrintStream out) {
        if (finished.getCount() == 0) {
            return;
        }
        close();
        out.println("stopped: the feeds and the waits (every long poll answered), then the servers and the broker");
        out.flush();
        finished.countDown();
    }

    private String banner(int duration) {
        StringBuilder text = new StringBuilder();
        text.append(broker != null ? "Kafka broker (KRaft, one node) on " + broker.bootstrapServers() + ", topic "
                + TOPIC + " (3 partitions)\n" : "");
        for (PaymentInstance instance : instances) {
            text.append(instance.name()).append(" on http://127.0.0.1:").append(instance.port()).append('\n');
        }
        PaymentInstance first = instances.get(0);
        PaymentInstance last = instances.get(instances.size() - 1);
        text.append("\nLong-poll on ").append(first.name()).append(":\n  curl -i 'http://127.0.0.1:")
                .append(first.port()).append("/orders/order-42/wait?timeoutMs=30000'\n")
                .append("and, in another terminal, pay the order on ").append(last.name())
                .append(":\n  curl -i -X POST 'http://127.0.0.1:").append(last.port()).append("/orders/order-42/paid?amountCents=1250'\n")
                .append("Feed numbers: curl http://127.0.0.1:").append(first.port()).append("/feed\n")
                .append(duration == 0 ? "Runs until stopped." : "Runs for " + duration + " s.");
        return text.toString();
    }

    /** Stops every instance (feed, waits, then server), then the broker if this demo started it. Idempotent. */
    @Override
    public void close() {
        for (PaymentInstance instance : instances) {
            instance.close();
        }
        if (broker != null) {
            broker.close();
        }
    }
}
