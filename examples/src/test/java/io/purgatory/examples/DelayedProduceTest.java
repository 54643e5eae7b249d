package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.examples.DelayedProduce.PartitionResponse;
import io.purgatory.timer.ManualTimer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DelayedProduceTest {

    private static final byte[] RECORD = "0123456789".getBytes(StandardCharsets.UTF_8);
    private final ManualTimer timer = new ManualTimer();
    private final ReplicaManager replicas = ReplicaManager.forTesting(new ReplicaManager.Config(3, 2, 1000), timer);
    private final TopicPartition tp0 = new TopicPartition("t", 0);
    private final TopicPartition tp1 = new TopicPartition("t", 1);
    private final List<Map<TopicPartition, PartitionResponse>> responses = new CopyOnWriteArrayList<>();

    DelayedProduceTest() {
        replicas.createTopic("t", 2);
    }

    @AfterEach
    void tearDown() {
        replicas.close();
        timer.close();
    }

    @Test
    void appendRecords_acksAll_completesOnlyWhenEveryInSyncFollowerHasTheRecord() {
        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD), responses::add);
        assertThat(responses).isEmpty();
        assertThat(replicas.producePurgatory().numDelayed()).isEqualTo(1);

        replicas.replicate(1, 0);
        assertThat(responses).as("follower 2 is in sync and lacks the record").isEmpty();

        replicas.replicate(2, 0);
        assertThat(responses).containsExactly(Map.of(tp0, new PartitionResponse(Errors.NONE, 0)));
        assertThat(replicas.producePurgatory().numDelayed()).isZero();
        assertThat(replicas.producePurgatory().watched()).isZero();
    }

    @Test
    void appendRecords_laggingReplica_expiresWithRequestTimedOutAtTheTimeout() {
        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD), responses::add);
        replicas.replicate(1, 0);

        timer.advanceClock(4_999);
        assertThat(responses).isEmpty();
        timer.advanceClock(1);

        assertThat(responses).containsExactly(Map.of(tp0, new PartitionResponse(Errors.REQUEST_TIMED_OUT, 0)));
        assertThat(replicas.produceExpirations()).isEqualTo(1);
    }

    @Test
    void appendRecords_laggingFollowerLeavesIsr_completesWithTheRemainingReplicas() {
        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD), responses::add);
        replicas.replicate(1, 0);
        timer.advanceClock(1_000);
        replicas.maybeShrinkIsr();
        assertThat(responses).as("lag of exactly the maximum is still in sync").isEmpty();

        timer.advanceClock(1);
        replicas.maybeShrinkIsr();

        assertThat(replicas.partition(tp0).inSyncReplicas()).containsExactlyInAnyOrder(0, 1);
        assertThat(responses).containsExactly(Map.of(tp0, new PartitionResponse(Errors.NONE, 0)));
    }

    @Test
    void appendRecords_followerCatchesUp_rejoinsIsr() {
        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD), responses::add);
        replicas.replicate(1, 0);
        timer.advanceClock(1_001);
        replicas.maybeShrinkIsr();
        assertThat(replicas.partition(tp0).inSyncReplicas()).doesNotContain(2);

        replicas.replicate(2, 0);

        assertThat(replicas.partition(tp0).inSyncReplicas()).contains(2);
    }

    @Test
    void appendRecords_leadershipMoves_completesWithNotLeaderOrFollower() {
        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD), responses::add);

        replicas.electLeader(tp0, 1);

        assertThat(responses).containsExactly(Map.of(tp0, new PartitionResponse(Errors.NOT_LEADER_OR_FOLLOWER, 0)));
        assertThat(replicas.producePurgatory().numDelayed()).isZero();
    }

    @Test
    void appendRecords_twoPartitions_answersOnceWithAStatusPerPartition() {
        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD, tp1, RECORD), responses::add);
        assertThat(replicas.producePurgatory().watched()).isEqualTo(2);

        replicas.electLeader(tp1, 1);
        assertThat(responses).as("tp0 still waits for acks").isEmpty();
        replicas.replicate(1, 0);
        replicas.replicate(2, 0);

        assertThat(responses).containsExactly(Map.of(
                tp0, new PartitionResponse(Errors.NONE, 0),
                tp1, new PartitionResponse(Errors.NOT_LEADER_OR_FOLLOWER, 0)));
    }

    @Test
    void appendRecords_tooFewInSyncReplicas_failsAtOnceWithoutWaiting() {
        timer.advanceClock(1);
        replicas.appendRecords(60_000, 1, Map.of(tp0, RECORD), r -> { });
        timer.advanceClock(1_001);
        replicas.maybeShrinkIsr();
        assertThat(replicas.partition(tp0).inSyncReplicas()).containsExactly(0);

        replicas.appendRecords(5_000, -1, Map.of(tp0, RECORD), responses::add);

        assertThat(responses).containsExactly(Map.of(tp0, new PartitionResponse(Errors.NOT_ENOUGH_REPLICAS, -1)));
        assertThat(replicas.producePurgatory().numDelayed()).isZero();
    }

    @Test
    void appendRecords_acksOneAndUnknownPartition_answerAtOnce() {
        TopicPartition unknown = new TopicPartition("nope", 0);

        replicas.appendRecords(5_000, 1, Map.of(tp0, RECORD, unknown, RECORD), responses::add);

        assertThat(responses).containsExactly(Map.of(tp0, new PartitionResponse(Errors.NONE, 0),
                unknown, new PartitionResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)));
    }

    @Test
    void appendRecords_badArguments_throwNamingThem() {
        assertThatThrownBy(() -> replicas.appendRecords(5_000, 2, Map.of(tp0, RECORD), responses::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks").hasMessageContaining("2");
        assertThatThrownBy(() -> replicas.appendRecords(-1, -1, Map.of(tp0, RECORD), responses::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeoutMs");
        assertThat(replicas.partition(tp0).logEndOffset()).isZero();
    }
}
