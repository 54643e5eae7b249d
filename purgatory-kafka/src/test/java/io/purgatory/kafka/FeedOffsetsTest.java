package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A position the broker no longer has (records deleted while the feed lagged, a truncated log),
 * which a real broker shows only under a race: on Kafka's MockConsumer, told what the broker says.
 */
class FeedOffsetsTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);

    /** MockConsumer with a timestamp index the test sets, and a poll that does not spin when idle. */
    static final class Broker extends MockConsumer<byte[], byte[]> {
        final Map<TopicPartition, Long> firstOffsetAtTime = new ConcurrentHashMap<>();

        Broker() {
            super("none");
        }

        @Override
        public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                Map<TopicPartition, Long> timestamps) {
            Map<TopicPartition, OffsetAndTimestamp> found = new HashMap<>();
            timestamps.forEach((partition, time) -> {
                Long offset = firstOffsetAtTime.get(partition);
                found.put(partition, offset == null ? null : new OffsetAndTimestamp(offset, time));
            });
            return found;
        }

        @Override
        public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps,
                                                                       Duration timeout) {
            return offsetsForTimes(timestamps);
        }

        @Override
        @SuppressWarnings("UnsynchronizedOverridesSynchronized") // super.poll locks; the park must not
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
            if (records.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            return records;
        }

        synchronized void append(long offset, String key) {
            addRecord(new ConsumerRecord<>("t", 0, offset, key.getBytes(UTF_8), "paid".getBytes(UTF_8)));
            updateEndOffsets(Map.of(P0, offset + 1));
        }
    }

    @Test
    void aPositionTheBrokerNoLongerHasIsCountedLoggedAndPositionedAgainByTimestamp() {
        Broker broker = new Broker();
        Node node = new Node(1, "127.0.0.1", 9092);
        broker.updatePartitions("t", List.of(new PartitionInfo("t", 0, node, new Node[] {node}, new Node[] {node})));
        broker.updateBeginningOffsets(Map.of(P0, 0L));
        broker.updateEndOffsets(Map.of(P0, 0L));
        broker.firstOffsetAtTime.put(P0, 0L);
        KeyedWaits<String, String> waits = KeyedWaits.builder("offsets").retainEvents(Duration.ofSeconds(30), 100)
                .build();
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<String, String> feed = KafkaFeed.builder(waits, "t").bootstrapServers("127.0.0.1:9092")
                     .key(record -> new String(record.key(), UTF_8)).value(record -> "paid")
                     .consumerFactory(config -> broker).closeWaits(true).build().start()) {
            Eventually.await("positioned", () -> feed.stats().partitions() == 1);
            for (long offset = 0; offset < 3; offset++) {
                broker.append(offset, "order-" + offset);
            }
            Eventually.await("read 3", () -> FeedLifecycleTest.outcomes(feed.stats()) == 3);

            broker.firstOffsetAtTime.put(P0, 7L); // offsets 3 to 6 were deleted while the feed lagged
            broker.setPollException(new OffsetOutOfRangeException("gone", Map.of(P0, 3L)));
            for (long offset = 7; offset < 10; offset++) {
                broker.append(offset, "order-" + offset);
            }

            Eventually.await("read the rest", () -> FeedLifecycleTest.outcomes(feed.stats()) == 6);
            assertThat(feed.stats().consumerErrors()).isEqualTo(1);
            assertThat(feed.stats().running()).isTrue();
            assertThat(waits.await("order-9", Duration.ZERO)).isCompletedWithValue("paid");
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("t-0=3", "no longer on the broker");
            });
        }
    }
}
