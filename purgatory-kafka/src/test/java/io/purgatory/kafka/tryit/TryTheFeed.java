package io.purgatory.kafka.tryit;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** A wait answered through Kafka: a feed of keyed waits from topic "payments", and an event published to it. */
public final class TryTheFeed {

    public static void main(String[] args) throws Exception {
        String broker = args.length > 0 ? args[0] : "127.0.0.1:9092";
        KeyedWaits<String, String> payments = KeyedWaits.builder("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000)          // the early-event window, read back on start
                .build();
        try (KafkaFeed<String, String> feed = KafkaFeed.builder(payments, "payments")
                     .bootstrapServers(broker)
                     .key(record -> new String(record.key(), UTF_8))
                     .value(record -> new String(record.value(), UTF_8))
                     .closeWaits(true)                                  // close() stops the feed, then the waits
                     .build()
                     .start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker,
                     ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                     ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            for (int i = 0; i < 60 && !feed.isReady(); i++) {         // a readiness check, as a health check would
                System.out.println("feed " + feed.state());            // TOPIC_MISSING, UNREACHABLE, READING_BACK...
                Thread.sleep(1_000);
            }
            CompletableFuture<String> paid = payments.await("order-42", Duration.ofSeconds(20)); // the long poll
            producer.send(new ProducerRecord<>("payments", "order-42", "12.50 EUR")).get();       // the webhook
            System.out.println("order-42 paid: " + paid.get() + " (feed " + feed.state() + ")");
        }
    }
}
