package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.examples.DelayedFetch.FetchPartitionData;
import io.purgatory.timer.ManualTimer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DelayedFetchTest {

    private static final byte[] TEN_BYTES = "0123456789".getBytes(StandardCharsets.UTF_8);
    private final ManualTimer timer = new ManualTimer();
    private final ReplicaManager replicas = ReplicaManager.forTesting(new ReplicaManager.Config(3, 2, 1000), timer);
    private final TopicPartition tp0 = new TopicPartition("t", 0);
    private final TopicPartition tp1 = new TopicPartition("t", 1);
    private final List<Map<TopicPartition, FetchPartitionData>> responses = new CopyOnWriteArrayList<>();

    DelayedFetchTest() {
        replicas.createTopic("t", 2);
    }

    @AfterEach
    void tearDown() {
        replicas.close();
        timer.close();
    }

    private void appendCommitted(TopicPartition tp) {
        replicas.appendRecords(1_000, 1, Map.of(tp, TEN_BYTES), r -> { });
        replicas.replicate(1, 0);
        replicas.replicate(2, 0);
    }

    @Test
    void fetchMessages_minBytesReached_completesWithTheRecords() {
        replicas.fetchMessages(1_000, 20, 1 << 20, Map.of(tp0, 0L), responses::add);
        assertThat(replicas.fetchPurgatory().numDelayed()).isEqualTo(1);

        appendCommitted(tp0);
        assertThat(responses).as("10 of 20 bytes").isEmpty();
        replicas.appendRecords(1_000, 1, Map.of(tp0, TEN_BYTES), r -> { });
        assertThat(responses).as("not yet committed: consumers read up to the high watermark").isEmpty();
        replicas.replicate(1, 0);
        replicas.replicate(2, 0);

        assertThat(responses).hasSize(1);
        FetchPartitionData data = responses.get(0).get(tp0);
        assertThat(data.error()).isEqualTo(Errors.NONE);
        assertThat(data.records()).hasSize(2);
        assertThat(data.highWatermark()).isEqualTo(2);
    }

    @Test
    void fetchMessages_maxWaitPasses_returnsWhatIsReadable() {
        appendCommitted(tp0);
        replicas.fetchMessages(500, 100, 1 << 20, Map.of(tp0, 0L), responses::add);

        timer.advanceClock(499);
        assertThat(responses).isEmpty();
        timer.advanceClock(1);

        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).get(tp0).records()).hasSize(1);
        assertThat(responses.get(0).get(tp0).error()).isEqualTo(Errors.NONE);
        assertThat(replicas.fetchExpirations()).isEqualTo(1);
    }

    @Test
    void fetchMessages_bytesAcrossPartitions_addUpToMinBytes() {
        replicas.fetchMessages(1_000, 20, 1 << 20, Map.of(tp0, 0L, tp1, 0L), responses::add);

        appendCommitted(tp0);
        assertThat(responses).isEmpty();
        appendCommitted(tp1);

        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).get(tp0).records()).hasSize(1);
        assertThat(responses.get(0).get(tp1).records()).hasSize(1);
    }

    @Test
    void fetchMessages_leadershipMoves_completesWithNotLeaderOrFollower() {
        replicas.fetchMessages(1_000, 1, 1 << 20, Map.of(tp0, 0L), responses::add);

        replicas.electLeader(tp0, 1);

        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).get(tp0).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void fetchMessages_dataAlreadyReadableOrBadOffset_answersAtOnce() {
        appendCommitted(tp0);

        replicas.fetchMessages(1_000, 1, 1 << 20, Map.of(tp0, 0L), responses::add);
        replicas.fetchMessages(1_000, 1, 1 << 20, Map.of(tp0, 7L), responses::add);

        assertThat(responses).hasSize(2);
        assertThat(responses.get(0).get(tp0).records()).hasSize(1);
        assertThat(responses.get(1).get(tp0).error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(replicas.fetchPurgatory().numDelayed()).isZero();
    }

    @Test
    void fetchMessages_maxBytes_limitsTheAnswerButReturnsAtLeastOneRecord() {
        appendCommitted(tp0);
        appendCommitted(tp0);

        replicas.fetchMessages(0, 1, 5, Map.of(tp0, 0L), responses::add);

        assertThat(responses.get(0).get(tp0).records()).hasSize(1);
    }
}
