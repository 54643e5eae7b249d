package io.purgatory.examples;

import io.purgatory.testbroker.KafkaBroker;
import java.io.IOException;
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
              --instances N    instances of the payment service (default 2)
              --port P         port of the first instance on 127.0.0.1; the others follow (default 8081; 0 = any)
              --duration S     how long to run, seconds (default 120; 0 = until stopped)
              --bootstrap B    use the broker at B (host:port) instead of starting one
            """;

    private final KafkaBroker broker;
    private final List<PaymentInstance> instances = new ArrayList<>();

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

    public static void main(String[] args) throws IOException, InterruptedException {
        int count = 2;
        int port = 8081;
        int duration = 120;
        String bootstrap = null;
        for (int i = 0; i < args.length; i += 2) {
            if (args[i].equals("--help") || i + 1 >= args.length) {
                System.out.print(USAGE);
                return;
            }
            switch (args[i]) {
                case "--instances" -> count = Integer.parseInt(args[i + 1]);
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--duration" -> duration = Integer.parseInt(args[i + 1]);
                case "--bootstrap" -> bootstrap = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option: " + args[i] + "\n" + USAGE);
            }
        }
        try (TwoInstanceDemo demo = start(count, port, bootstrap)) {
            System.out.println(demo.banner(duration));
            CountDownLatch never = new CountDownLatch(1);
            if (duration == 0) {
                never.await();
            } else {
                never.await(duration, TimeUnit.SECONDS);
            }
        }
        System.out.println("stopped: the feeds, then the waits, then the broker");
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

    /** Stops every instance (feed, then waits), then the broker if this demo started it. */
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
