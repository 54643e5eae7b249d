package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import io.purgatory.testsupport.Eventually;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One instance of a service in the tests: its own keyed waits (payments by order id), fed by its
 * own feed from the shared topic, and a producer that publishes the events it receives (the
 * "POST /orders/{id}/paid" of a real service) to the topic instead of completing them locally.
 */
final class Instance implements AutoCloseable {

    final KeyedWaits<String, String> waits;
    final KafkaFeed<String, String> feed;
    private final KafkaProducer<String, String> producer;
    private final String topic;

    private Instance(KeyedWaits<String, String> waits, KafkaFeed<String, String> feed, String topic) {
        this.waits = waits;
        this.feed = feed;
        this.topic = topic;
        this.producer = producer();
    }

    /** An instance whose waits keep early events for {@code window} on {@code timer} (null: a real one). */
    static Instance start(String name, String topic, Duration window, ManualTimer timer) {
        return start(name, topic, window, timer, feed -> feed);
    }

    static Instance start(String name, String topic, Duration window, ManualTimer timer,
                          UnaryOperator<KafkaFeed.Builder<String, String>> options) {
        KeyedWaitsBuilder builder = KeyedWaits.builder(name).retainEvents(window, 100_000);
        if (timer != null) {
            builder.timer(timer);
        }
        KeyedWaits<String, String> waits = builder.build();
        KafkaFeed<String, String> feed = options.apply(KafkaFeed.builder(waits, topic)
                .bootstrapServers(SharedBroker.broker().bootstrapServers())
                .key(record -> record.key() == null ? null : new String(record.key(), UTF_8))
                .value(record -> new String(record.value(), UTF_8))
                .closeWaits(true)).build().start();
        return new Instance(waits, feed, topic);
    }

    /** Publishes {@code value} for {@code key} and waits for the broker's ack. */
    RecordMetadata publish(String key, String value) {
        return get(producer.send(new ProducerRecord<>(topic, key, value)));
    }

    /** Sends without waiting for the ack; the producer retries through a broker restart. */
    Future<RecordMetadata> send(String key, String value) {
        return producer.send(new ProducerRecord<>(topic, key, value));
    }

    /**
     * Waits until the feed has handed {@code records} records over (each counted by its outcome,
     * after the waits' complete() returned).
     */
    void awaitCaughtUp(long records) {
        Eventually.await(feed.name() + " has handed over " + records + " records",
                () -> FeedLifecycleTest.outcomes(feed.stats()) >= records);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        feed.close(); // then the waits (closeWaits)
    }

    static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedBroker.broker().bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }

    static <T> T get(Future<T> future) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }
}
