package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.Eventually;
import io.purgatory.timer.ManualClock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A partition added to the topic is found at the feed's next refresh, on a real broker. The feed's
 * clock is manual, so "the next refresh" is a moment the test chooses: a feed that asked a metadata
 * cache refreshed on the broker client's own (real) clock would not see the partition then.
 */
@ExtendWith(SharedBroker.class)
class FeedDiscoveryTest {

    @Test
    void refresh_partitionAddedToTheTopic_isFoundAtTheNextRefreshAndAnEventThereAnswersItsWait() {
        String topic = SharedBroker.newTopic("grows-at-refresh", 1);
        ManualClock clock = new ManualClock();
        Duration interval = Duration.ofHours(1);
        try (Instance a = Instance.start("a", topic, Duration.ofSeconds(30), null,
                feed -> feed.refreshInterval(interval).clock(clock))) {
            Eventually.await("a reads partition 0", () -> a.feed.stats().partitions() == 1);
            try (var admin = SharedBroker.broker().admin()) {
                Instance.get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all());
            }
            CompletableFuture<String> wait = a.waits.await("order-1", Duration.ofMinutes(2));
            try (var producer = Instance.producer()) {
                Instance.get(producer.send(new ProducerRecord<>(topic, 1, "order-1", "paid")));
            }
            clock.advance(interval.minusMillis(1));
            clock.advance(10, TimeUnit.MILLISECONDS); // the refresh is due: the next step asks the broker

            assertThat(wait).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid");
            assertThat(a.feed.stats().partitions()).isEqualTo(2);
        }
    }
}
