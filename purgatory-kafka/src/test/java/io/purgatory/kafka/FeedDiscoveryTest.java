package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.Eventually;
import io.purgatory.timer.ManualClock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A partition added to the topic is found at the feed's next check, a second later, on a real
 * broker. The feed's clock is manual, so "the next check" is a moment the test chooses: a feed
 * that asked for the partitions less often, or asked a metadata cache refreshed on the broker
 * client's own (real) clock, would not see the partition then.
 */
@ExtendWith(SharedBroker.class)
class FeedDiscoveryTest {

    /**
     * The name is the one docs/reliability.md cites (from when the partitions were refreshed apart
     * from the check): the next refresh is now the check of every second.
     */
    @Test
    void refresh_partitionAddedToTheTopic_isFoundAtTheNextRefreshAndAnEventThereAnswersItsWait() {
        String topic = SharedBroker.newTopic("grows-at-check", 1);
        ManualClock clock = new ManualClock();
        AtomicInteger answered = new AtomicInteger(); // the broker's answers about the topic's partitions
        try (Instance a = Instance.start("a", topic, Duration.ofSeconds(30), null, feed -> feed.clock(clock)
                .adminFactory((config, timeout) -> new CountingAdmin(KafkaTopicAdmin.create(config, timeout),
                        answered)))) {
            Eventually.await("a reads partition 0", () -> a.feed.stats().partitions() == 1);
            clock.advance(BrokerChecks.CHECK_NANOS, TimeUnit.NANOSECONDS);
            Eventually.await("a running feed's first check after the start is answered", () -> answered.get() >= 2);
            try (var admin = SharedBroker.broker().admin()) {
                Instance.get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all());
            }
            CompletableFuture<String> wait = a.waits.await("order-1", Duration.ofMinutes(2));
            try (var producer = Instance.producer()) {
                Instance.get(producer.send(new ProducerRecord<>(topic, 1, "order-1", "paid")));
            }

            clock.advance(BrokerChecks.CHECK_NANOS, TimeUnit.NANOSECONDS); // the next check is due

            assertThat(wait).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid");
            assertThat(a.feed.stats().partitions()).isEqualTo(2);
        }
    }

    /** The feed's admin client, counting the broker's answers about the topic's partitions. */
    private record CountingAdmin(TopicAdmin admin, AtomicInteger answered) implements TopicAdmin {

        @Override
        public CompletableFuture<Set<TopicPartition>> partitions(String topic) {
            return admin.partitions(topic).whenComplete((partitions, error) -> answered.incrementAndGet());
        }

        @Override
        public CompletableFuture<Map<TopicPartition, Long>> endOffsets(Collection<TopicPartition> partitions) {
            return admin.endOffsets(partitions);
        }

        @Override
        public CompletableFuture<Map<TopicPartition, Long>> offsetsForTimes(Map<TopicPartition, Long> timestampsMs) {
            return admin.offsetsForTimes(timestampsMs);
        }

        @Override
        public CompletableFuture<Void> createTopic(String topic, int partitions, short replicationFactor) {
            return admin.createTopic(topic, partitions, replicationFactor);
        }

        @Override
        public void close() {
            admin.close();
        }
    }
}
