package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.testsupport.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A feed behind the topic shows its lag as a number, a meter and the health signal, on a real broker. */
@ExtendWith(SharedBroker.class)
class FeedLagTest {

    private static final Duration WINDOW = Duration.ofSeconds(60);

    @Test
    void lag_feedBehindTheTopic_isShownAndTheFeedIsLaggingUntilItCatchesUp() {
        String topic = SharedBroker.newTopic("lag", 2);
        int events = 2_000;
        try (Instance b = Instance.start("b", topic, WINDOW, null)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                acks.add(b.send("order-" + i, "paid-" + i));
            }
            acks.forEach(Instance::get);
            b.awaitCaughtUp(events);

            KeyedWaits<String, String> waits = KeyedWaits.builder("slow").retainEvents(WINDOW, 10_000).build();
            AtomicLong maxLagSeen = new AtomicLong();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (KafkaFeed<String, String> feed = KafkaFeed.builder(waits, topic)
                    .bootstrapServers(SharedBroker.broker().bootstrapServers())
                    .key(record -> new String(record.key(), UTF_8))
                    .value(record -> {
                        sleepMillis(1); // a slow consumer of the events
                        return new String(record.value(), UTF_8);
                    })
                    .lagThreshold(Duration.ZERO).closeWaits(true).build();
                 KafkaFeedMetrics metrics = new KafkaFeedMetrics(feed)) {
                metrics.bindTo(registry);
                feed.start();

                Eventually.await("a lag is seen", () -> {
                    maxLagSeen.accumulateAndGet(feed.stats().lag(), Math::max);
                    return maxLagSeen.get() > 0 && feed.isLagging();
                });
                assertThat(registry.get("purgatory.feed.lagging").gauge().value()).isEqualTo(1);
                assertThat(feed.stats().lag()).isLessThanOrEqualTo(events);

                Eventually.await("caught up", () -> feed.stats().eventsRead() == events && !feed.isLagging());
                assertThat(feed.stats().lag()).isZero();
                assertThat(registry.get("purgatory.feed.lag").gauge().value()).isZero();
                assertThat(registry.get("purgatory.feed.lagging").gauge().value()).isZero();
            }
        }
    }

    @Test
    @SuppressWarnings("FutureReturnValueIgnored") // the stage is there to block the feed's thread
    void isLagging_feedThreadBlockedByAStage_isTrue() throws Exception {
        String topic = SharedBroker.newTopic("blocked", 1);
        CountDownLatch release = new CountDownLatch(1);
        try (Instance a = Instance.start("a", topic, WINDOW, null, feed -> feed.lagThreshold(Duration.ofMillis(1)));
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            Eventually.await("a is positioned", () -> a.feed.stats().partitions() == 1 && !a.feed.isLagging());
            a.waits.await("order-1", Duration.ofSeconds(60)).thenRun(() -> await(release)); // a stage that blocks

            b.publish("order-1", "paid");
            Eventually.await("a is lagging", a.feed::isLagging);
            assertThat(a.feed.stats().lagging()).isTrue();

            release.countDown();
            a.awaitCaughtUp(1);
            Eventually.await("a is not lagging", () -> !a.feed.isLagging());
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
