package io.purgatory.kafka.compat;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.testbroker.KafkaBroker;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The feed, built with the kafka-clients of the project, run on the kafka-clients this module puts
 * on the class path instead (the versions Spring Boot manages: see the pom), as a Boot user runs
 * it: built, started, a wait answered across a real broker, and closed with nothing left open (no
 * thread, no client registered) and nothing logged. Public API only.
 */
class FeedOnManagedClientsTest {

    private static final String CLIENT_ID = "kafka-feed-compat";

    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = KafkaBroker.builder().start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void feed_onTheManagedKafkaClients_answersAWaitAcrossTheBrokerAndClosesWithNothingLeftOpen() throws Exception {
        assertThat(AppInfoParser.getVersion()).as("the kafka-clients on the class path")
                .isEqualTo(System.getProperty("kafka.clients.expected"));
        broker.createTopic("payments", 2);
        KeyedWaits<String, String> payments = KeyedWaits.builder("payments")
                .retainEvents(Duration.ofSeconds(30), 1_000).build();
        try (LogCapture log = new LogCapture(Logger.ROOT_LOGGER_NAME)) {
            KafkaFeed<String, String> feed = KafkaFeed.builder(payments, "payments")
                    .bootstrapServers(broker.bootstrapServers())
                    .consumerProperty("client.id", CLIENT_ID)
                    .key(record -> new String(record.key(), UTF_8))
                    .value(record -> new String(record.value(), UTF_8))
                    .closeWaits(true)
                    .build()
                    .start();
            Eventually.await("the feed is ready", feed::isReady);
            assertThat(clientThreads()).as("the feed's thread and its admin client's").contains("kafka-feed-payments")
                    .anyMatch(name -> name.contains(CLIENT_ID + "-admin"));
            assertThat(registeredClients()).as("the consumer and the admin client").hasSize(2);

            CompletableFuture<String> paid = payments.await("order-42", Duration.ofSeconds(60));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
                producer.send(new ProducerRecord<>("payments", "order-42", "12.50 EUR")).get(60, TimeUnit.SECONDS);
            }
            assertThat(paid).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("12.50 EUR");

            feed.close();

            assertThat(feed.stats().running()).isFalse();
            assertThat(payments.isClosed()).isTrue();
            Eventually.await("no thread of the feed or its clients is left", () -> clientThreads().isEmpty());
            assertThat(registeredClients()).as("the consumer and the admin client are closed").isEmpty();
            assertThat(log.events()).as("logged (WARN and above; the Kafka clients' ERROR and above)")
                    .extracting(FeedOnManagedClientsTest::describe).isEmpty();
        }
    }

    /** The live threads of the feed ({@code kafka-feed-payments}) and of its clients (named by their client ids). */
    private static List<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.equals("kafka-feed-payments") || name.contains(CLIENT_ID)).toList();
    }

    /** The Kafka clients of the feed still registered (each registers its app-info MBean until it is closed). */
    private static Set<ObjectName> registeredClients() throws MalformedObjectNameException {
        return ManagementFactory.getPlatformMBeanServer().queryNames(
                new ObjectName("kafka.*:type=app-info,id=" + CLIENT_ID + "*"), null);
    }

    private static String describe(ILoggingEvent event) {
        return event.getLevel() + " " + event.getLoggerName() + ": " + event.getFormattedMessage()
                + (event.getThrowableProxy() == null ? "" : " " + event.getThrowableProxy().getClassName());
    }
}
