package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A feed says when it cannot hear its topic, on a real broker: not ready while the topic is
 * missing, ready once it exists and is read, not ready within a bound of the broker stopping,
 * ready again when it is back; its lag reads as unknown meanwhile. And a feed that creates its
 * topic.
 */
@ExtendWith(SharedBroker.class)
class FeedReadinessTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);

    @Test
    void isReady_topicMissingThenPresent_onlyWhileItsTopicExistsAndTheBrokerAnswers() {
        String topic = "missing-" + System.nanoTime();
        KeyedWaits<String, String> waits = KeyedWaits.builder("deaf").retainEvents(WINDOW, 100).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<String, String> feed = feed(waits, topic).build();
             KafkaFeedMetrics metrics = new KafkaFeedMetrics(feed)) {
            metrics.bindTo(registry);
            assertThat(feed.state()).isEqualTo(FeedState.NEW);
            long started = System.nanoTime();
            feed.start();

            // missing: says so, and still says so after the broker's silence limit (it answers every second)
            Eventually.await("the topic is missing for longer than the silence limit", () ->
                    System.nanoTime() - started > KafkaFeed.MAX_SILENCE.plusSeconds(1).toNanos()
                            && feed.state() == FeedState.TOPIC_MISSING);
            assertDeaf(feed, registry);
            assertThat(feed.stats().partitions()).isZero();

            SharedBroker.broker().createTopic(topic, 2);
            Eventually.await("ready", feed::isReady);
            assertThat(registry.get("purgatory.feed.ready").gauge().value()).isEqualTo(1);
            Eventually.await("the lag measured by a poll", () -> feed.stats().lag() == 0); // unknown until then
            assertThat(registry.get("purgatory.feed.lag").gauge().value()).isZero();
            assertThat(feed.stats().partitions()).isEqualTo(2);
            assertAnswered(waits, topic, "order-1");

            SharedBroker.broker().stop();
            long stopped = System.nanoTime();
            Eventually.await("not ready", () -> !feed.isReady());
            long notReadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            assertThat(notReadyMs).as("not ready within the silence limit (3 s) of the broker's last answer;"
                    + " the bound here is only a failure bound").isLessThan(20_000);
            assertThat(feed.state()).isEqualTo(FeedState.UNREACHABLE);
            assertDeaf(feed, registry);
            assertThat(feed.isLagging()).as("its lag is unknown").isTrue();
            System.out.printf("FeedReadinessTest: not ready %d ms after the broker's process ended%n", notReadyMs);

            SharedBroker.broker().start();
            Eventually.await("ready again", feed::isReady);
            assertAnswered(waits, topic, "order-2");
            assertThat(feed.stats().running()).isTrue();
            assertThat(log.events()).allSatisfy(e -> assertThat(e.getFormattedMessage())
                    .containsAnyOf("does not exist", "could not check", "could not read", "could not look up"));
        } finally {
            waits.close();
        }
    }

    @Test
    void createTopicIfMissing_topicMissing_createsItAndASecondFeedTakesItAsItIs() throws Exception {
        String topic = "created-" + System.nanoTime();
        KeyedWaits<String, String> first = KeyedWaits.builder("creator").retainEvents(WINDOW, 100).build();
        KeyedWaits<String, String> second = KeyedWaits.builder("latecomer").retainEvents(WINDOW, 100).build();
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<String, String> creator = feed(first, topic).createTopicIfMissing(3, (short) 1)
                     .closeWaits(true).build().start()) {
            Eventually.await("ready", creator::isReady);
            assertThat(creator.stats().partitions()).isEqualTo(3);
            try (var admin = SharedBroker.broker().admin()) {
                TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(30, TimeUnit.SECONDS).get(topic);
                assertThat(description.partitions()).hasSize(3);
            }
            try (KafkaFeed<String, String> latecomer = feed(second, topic).createTopicIfMissing(5, (short) 1)
                    .closeWaits(true).build().start()) {
                Eventually.await("the second is ready", latecomer::isReady);
                assertThat(latecomer.stats().partitions()).isEqualTo(3);
                CompletableFuture<String> onFirst = first.await("order-1", Duration.ofSeconds(60));
                assertAnswered(second, topic, "order-1");
                assertThat(onFirst).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid");
            }
            assertThat(log.events()).noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains("does not exist"));
        }
    }

    /** Not ready, its lag unknown: -1 in the stats, NaN on the gauges. */
    private static void assertDeaf(KafkaFeed<String, String> feed, MeterRegistry registry) {
        assertThat(feed.isReady()).isFalse();
        assertThat(feed.stats().ready()).isFalse();
        assertThat(feed.stats().lag()).isEqualTo(-1);
        assertThat(feed.stats().maxPartitionLag()).isEqualTo(-1);
        assertThat(registry.get("purgatory.feed.ready").gauge().value()).isZero();
        assertThat(registry.get("purgatory.feed.lag").gauge().value()).isNaN();
        assertThat(registry.get("purgatory.feed.lag.max").gauge().value()).isNaN();
    }

    /** An event published now answers a wait on {@code key} through the feed. */
    private static void assertAnswered(KeyedWaits<String, String> waits, String topic, String key) {
        CompletableFuture<String> wait = waits.await(key, Duration.ofSeconds(60));
        try (var producer = Instance.producer()) {
            Instance.get(producer.send(new ProducerRecord<>(topic, key, "paid")));
        }
        assertThat(wait).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid");
    }

    private static KafkaFeed.Builder<String, String> feed(KeyedWaits<String, String> waits, String topic) {
        return KafkaFeed.builder(waits, topic).bootstrapServers(SharedBroker.broker().bootstrapServers())
                .key(record -> new String(record.key(), UTF_8)).value(record -> new String(record.value(), UTF_8));
    }
}
