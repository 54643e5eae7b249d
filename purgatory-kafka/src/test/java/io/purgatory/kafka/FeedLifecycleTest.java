package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitTimeoutException;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Start, close and their order with the waits; mapping errors and skipped records; on a real broker. */
@ExtendWith(SharedBroker.class)
class FeedLifecycleTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);

    @Test
    void close_closeWaitsSet_stopsTheFeedThenClosesTheWaitsAndNothingCompletesAClosedWait() {
        String topic = SharedBroker.newTopic("close", 1);
        try (Instance b = Instance.start("b", topic, WINDOW, null)) {
            Instance a = Instance.start("a", topic, WINDOW, null);
            CompletableFuture<String> wait = a.waits.await("order-1", Duration.ofSeconds(60));

            a.close();

            assertThat(a.feed.stats().running()).as("the feed stopped first").isFalse();
            assertThat(a.waits.isClosed()).isTrue();
            assertThat(wait).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                    .satisfies(e -> assertThat(((WaitTimeoutException) e.getCause()).closed()).isTrue());
            b.publish("order-1", "paid");
            b.awaitCaughtUp(1);
            assertThat(a.waits.complete("order-1", "paid")).as("complete on closed waits").isZero();
            assertThat(wait.isCompletedExceptionally()).isTrue();
            assertThat(a.feed.stats().eventsRead()).isZero();
        }
    }

    @Test
    void feed_waitsClosedFirst_stopsByItselfAndSaysSo() {
        String topic = SharedBroker.newTopic("waits-first", 1);
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            KeyedWaits<String, String> waits = KeyedWaits.builder("first").retainEvents(WINDOW, 100).build();
            KafkaFeed<String, String> feed = feed(waits, topic).build().start();
            CompletableFuture<String> wait = waits.await("order-1", Duration.ofSeconds(60));

            waits.close(); // the wrong order
            b.publish("order-1", "paid");

            Eventually.await("the feed stopped", () -> !feed.stats().running());
            assertThat(wait).isCompletedExceptionally();
            assertThat(feed.stats().eventsCompleted()).isZero();
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("were closed before it");
            });
            feed.close();
        }
    }

    @Test
    void mappingFunction_throws_costsItsRecordOnlyAndIsCountedAndLogged() throws Exception {
        String topic = SharedBroker.newTopic("mapping", 1);
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            KeyedWaits<String, Integer> waits = KeyedWaits.builder("amounts").retainEvents(WINDOW, 100).build();
            try (KafkaFeed<String, Integer> feed = KafkaFeed.builder(waits, topic)
                    .bootstrapServers(SharedBroker.broker().bootstrapServers())
                    .key(record -> record.key() == null ? null : new String(record.key(), UTF_8))
                    .value(record -> Integer.parseInt(new String(record.value(), UTF_8)))
                    .closeWaits(true).build().start()) {
                CompletableFuture<Integer> wait = waits.await("order-2", Duration.ofSeconds(60));

                b.publish("order-1", "not a number");
                b.publish(null, "no key");
                b.publish("order-2", "1250");

                assertThat(wait.get()).isEqualTo(1250);
                // the future completes inside complete(), before the feed counts the event
                Eventually.await("the three records are counted", () -> outcomes(feed.stats()) == 3);
                FeedStats stats = feed.stats();
                assertThat(stats.eventsRead()).isEqualTo(3);
                assertThat(stats.mappingErrors()).isEqualTo(1);
                assertThat(stats.eventsSkipped()).isEqualTo(1);
                assertThat(stats.eventsCompleted()).isEqualTo(1);
                assertThat(stats.running()).isTrue();
                assertThat(log.events()).singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.WARN);
                    assertThat(e.getFormattedMessage()).contains(topic + "-0@0", "could not be mapped");
                    assertThat(e.getThrowableProxy().getClassName()).isEqualTo(NumberFormatException.class.getName());
                });
            }
        }
    }

    @Test
    void startAndClose_repeatedOrOutOfOrder_areCheckedAndCloseIsIdempotent() {
        String topic = SharedBroker.newTopic("lifecycle", 1);
        KeyedWaits<String, String> waits = KeyedWaits.builder("lifecycle").build();
        KafkaFeed<String, String> feed = feed(waits, topic).build();
        assertThat(feed.stats().running()).isFalse();
        feed.start();
        assertThatThrownBy(feed::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("started");
        feed.close();
        feed.close();
        assertThat(feed.stats().running()).isFalse();
        assertThatThrownBy(feed::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(waits.isClosed()).as("closeWaits is off by default").isFalse();

        waits.close();
        assertThatThrownBy(() -> feed(waits, topic).build().start()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        feed(waits, topic).build().close(); // never started: nothing to stop
    }

    @Test
    void check_partitionsAddedToTheTopic_areFoundAndReadFromTheirStart() {
        String topic = SharedBroker.newTopic("grows", 1);
        try (Instance a = Instance.start("a", topic, WINDOW, null);
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            b.publish("order-0", "paid-0");
            a.awaitCaughtUp(1);
            try (var admin = SharedBroker.broker().admin()) {
                Instance.get(admin.createPartitions(java.util.Map.of(topic,
                        org.apache.kafka.clients.admin.NewPartitions.increaseTo(4))).all());
            }
            Eventually.await("the new partitions are read", () -> a.feed.stats().partitions() == 4);
            for (int i = 1; i <= 20; i++) {
                b.publish("order-" + i, "paid-" + i);
            }

            a.awaitCaughtUp(21);
            assertThat(a.waits.await("order-20", Duration.ZERO)).isCompletedWithValue("paid-20");
            Eventually.await("caught up", () -> a.feed.stats().lag() == 0);
            assertThat(a.feed.stats().eventsRead()).isEqualTo(21);
        }
    }

    @Test
    void start_beforeTheTopicExists_saysSoOnceAndReadsItWhenItComes() throws Exception {
        String topic = "later-" + System.nanoTime();
        try (LogCapture log = new LogCapture(KafkaFeed.class)) {
            KeyedWaits<String, String> waits = KeyedWaits.builder("later").retainEvents(WINDOW, 100).build();
            try (KafkaFeed<String, String> feed = feed(waits, topic).closeWaits(true).build()
                    .start()) {
                CompletableFuture<String> wait = waits.await("order-1", Duration.ofSeconds(60));
                Eventually.await("the missing topic is reported", () -> !log.events().isEmpty());
                assertThat(feed.stats().partitions()).isZero();

                SharedBroker.broker().createTopic(topic, 2);
                try (var producer = Instance.producer()) {
                    Instance.get(producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic,
                            "order-1", "paid")));
                }

                assertThat(wait.get()).isEqualTo("paid");
                assertThat(feed.stats().partitions()).isEqualTo(2);
                assertThat(log.events()).singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.WARN);
                    assertThat(e.getFormattedMessage()).contains(topic, "does not exist");
                });
            }
        }
    }

    static long outcomes(FeedStats stats) {
        return stats.eventsCompleted() + stats.eventsNoWaiter() + stats.eventsSkipped() + stats.mappingErrors()
                + stats.completeErrors();
    }

    private static KafkaFeed.Builder<String, String> feed(KeyedWaits<String, String> waits, String topic) {
        return KafkaFeed.builder(waits, topic).bootstrapServers(SharedBroker.broker().bootstrapServers())
                .key(record -> new String(record.key(), UTF_8)).value(record -> new String(record.value(), UTF_8));
    }
}
