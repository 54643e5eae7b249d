package io.purgatory.testbroker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A single-node Kafka broker on 127.0.0.1 for trying the feed by hand (docs/kafka-feed.md, "Try
 * it"): starts a {@link KafkaBroker} on port 9092, creates the topics asked for, prints where it
 * listens, and runs until Ctrl-C (or for {@code --duration} seconds); its data goes with it.
 *
 * <p>Arguments: {@code [--port 9092] [--topic name[:partitions]]... [--duration seconds]}.
 */
public final class LocalBroker {

    private LocalBroker() {
    }

    /** Starts the broker, creates the topics, and waits for Ctrl-C or the duration. */
    public static void main(String[] args) throws InterruptedException {
        int port = 9092;
        long durationSeconds = 0;
        Map<String, Integer> topics = new LinkedHashMap<>();
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String option = rest.remove(0);
            if (rest.isEmpty()) {
                throw new IllegalArgumentException(option + " needs a value; usage: [--port 9092]"
                        + " [--topic name[:partitions]]... [--duration seconds]");
            }
            String value = rest.remove(0);
            switch (option) {
                case "--port" -> port = Integer.parseInt(value);
                case "--duration" -> durationSeconds = Long.parseLong(value);
                case "--topic" -> {
                    String[] nameAndPartitions = value.split(":", 2);
                    topics.put(nameAndPartitions[0],
                            nameAndPartitions.length == 2 ? Integer.parseInt(nameAndPartitions[1]) : 1);
                }
                default -> throw new IllegalArgumentException("unknown option: " + option
                        + "; usage: [--port 9092] [--topic name[:partitions]]... [--duration seconds]");
            }
        }
        KafkaBroker broker = KafkaBroker.builder().port(port).start();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "local-broker-stop"));
        topics.forEach(broker::createTopic);
        System.out.printf("Kafka broker on %s%s (its log: %s). %s%n", broker.bootstrapServers(),
                topics.isEmpty() ? "" : ", topics " + topics, broker.logFile(),
                durationSeconds > 0 ? "It stops in " + durationSeconds + " s." : "Ctrl-C stops it.");
        CountDownLatch never = new CountDownLatch(1);
        if (durationSeconds > 0) {
            never.await(durationSeconds, TimeUnit.SECONDS);
            broker.close();
            System.out.println("Kafka broker stopped after " + Duration.ofSeconds(durationSeconds));
        } else {
            never.await(); // until Ctrl-C: the shutdown hook stops the broker and deletes its data
        }
    }
}
