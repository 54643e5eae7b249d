package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.purgatory.internal.UserCode;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Purgatory#listPending}: the pending operations, oldest first or soonest due first, up to a
 * limit, each with its kind, keys, age, time left, position and whether a check tried it. The
 * list is checked against a model of every operation submitted and settled, at every limit, after
 * random submissions on shared and own keys, positions and settles: what the early stop of its walk
 * (PendingList, Watchers K8) leaves out must be exactly what the model ranks below the limit.
 */
class PendingListTest {

    /** An operation that completes only when told to; its keys as the model knows them. */
    static class Op extends DelayedOperation {
        Op(long delayMs) {
            super(delayMs);
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }
    }

    /** The model of one submitted operation. */
    record Submitted(Op op, List<String> keys, long watchedAtMs, long delayMs, Long position) {
    }

    private final ManualTimer timer = new ManualTimer();
    private DelayedOperationPurgatory<Op> purgatory =
            DelayedOperationPurgatory.<Op>builder("listed").timer(timer).shards(8).build();

    @AfterEach
    void close() {
        purgatory.engine().checkInvariants();
        purgatory.close();
    }

    @ParameterizedTest(name = "{0} shard(s), seed {1}")
    @CsvSource({"1, 1", "1, 2", "1, 6", "1, 7", "8, 3", "8, 4", "512, 5"})
    void listPending_afterRandomSubmissionsAndSettles_isTheModelsFirstAtEveryLimitInBothOrders(int shards, long seed) {
        purgatory.close();
        purgatory = DelayedOperationPurgatory.<Op>builder("listed").timer(timer).shards(shards).build();
        Random random = new Random(seed);
        List<Submitted> model = new ArrayList<>();
        Map<Op, Boolean> tried = new HashMap<>();
        for (int i = 0; i < 600; i++) {
            timer.advanceClock(1); // distinct watch times: an age names its operation
            long delayMs = 1_000L * (1 + random.nextInt(50)); // distinct due times too (watch times < 1000)
            Op op = new Op(delayMs);
            int shape = random.nextInt(4);
            List<String> keys;
            Long position = null;
            if (shape == 0) {
                keys = List.of("shared-" + random.nextInt(5));
                purgatory.tryCompleteElseWatch(op, keys);
            } else if (shape == 1) {
                keys = List.of("shared-" + random.nextInt(5), "own-" + i, "shared-" + (5 + random.nextInt(5)));
                purgatory.tryCompleteElseWatch(op, keys);
            } else if (shape == 2) {
                keys = List.of("log-" + random.nextInt(3));
                position = (long) random.nextInt(100);
                purgatory.tryCompleteElseWatch(op, keys.get(0), position);
            } else {
                keys = List.of("own-" + i);
                purgatory.tryCompleteElseWatch(op, keys);
            }
            model.add(new Submitted(op, keys, i + 1, delayMs, position));
            tried.put(op, false);
            int action = random.nextInt(10);
            if (action < 3 && !model.isEmpty()) { // settle one at random, from the middle as often as not
                Submitted settled = model.remove(random.nextInt(model.size()));
                assertThat(settled.op().cancel()).isTrue();
            } else if (action == 3) { // a check that completes nothing tries every operation on the key
                String key = "shared-" + random.nextInt(10);
                purgatory.checkAndComplete(key);
                model.stream().filter(s -> s.keys().contains(key)).forEach(s -> tried.put(s.op(), true));
            }
        }
        purgatory.engine().checkInvariants();
        long nowMs = 600;
        for (PendingOrder order : PendingOrder.values()) {
            Comparator<Submitted> rank = order == PendingOrder.OLDEST_FIRST
                    ? Comparator.comparingLong(Submitted::watchedAtMs)
                    : Comparator.comparingLong(s -> s.watchedAtMs() + s.delayMs());
            List<Submitted> expected = model.stream().sorted(rank).toList();
            for (int limit : new int[] {1, 2, 3, 10, 57, 100, expected.size() - 1, expected.size(),
                    expected.size() + 5}) {
                List<PendingOperation> listed = purgatory.listPending(limit, order);
                List<Submitted> first = expected.subList(0, Math.min(limit, expected.size()));
                assertThat(listed).as("%s, limit %d", order, limit).hasSize(first.size());
                for (int i = 0; i < first.size(); i++) {
                    Submitted s = first.get(i);
                    long ageMs = nowMs - s.watchedAtMs();
                    assertThat(listed.get(i)).as("%s, limit %d, #%d", order, limit, i).isEqualTo(new PendingOperation(
                            "Op", s.keys(), ageMs, s.delayMs() - ageMs, s.position(), tried.get(s.op()), null));
                }
            }
        }
    }

    @Test
    void listPending_ofAnOperationOnSeveralKeys_showsItOnceWithItsKeysInTheOrderGiven() {
        purgatory.tryCompleteElseWatch(new Op(5_000), List.of("c", "a", "b"));
        timer.advanceClock(7);

        assertThat(purgatory.listPending(10, PendingOrder.OLDEST_FIRST))
                .containsExactly(new PendingOperation("Op", List.of("c", "a", "b"), 7, 4_993, null, false, null));
    }

    @Test
    void listPending_soonestDueFirst_putsOperationsWithNoTimeoutLast() {
        purgatory.tryCompleteElseWatch(new Op(Long.MAX_VALUE), List.of("forever"));
        timer.advanceClock(1);
        purgatory.tryCompleteElseWatch(new Op(3_000), List.of("later"));
        purgatory.tryCompleteElseWatch(new Op(2_000), List.of("sooner"));

        assertThat(purgatory.listPending(3, PendingOrder.SOONEST_DUE_FIRST))
                .extracting(p -> p.keys().get(0), PendingOperation::timeLeftMs)
                .containsExactly(tuple("sooner", 2_000L),
                        tuple("later", 3_000L),
                        tuple("forever", -1L));
        assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST)).extracting(p -> p.keys().get(0))
                .containsExactly("forever");
    }

    @Test
    void listPending_showsNoSettledOperation_andNothingOnceClosed() {
        Op completed = new Op(5_000);
        Op expired = new Op(10);
        Op pending = new Op(5_000);
        purgatory.tryCompleteElseWatch(completed, List.of("k"));
        purgatory.tryCompleteElseWatch(expired, List.of("k"));
        purgatory.tryCompleteElseWatch(pending, List.of("k"));
        completed.forceComplete();
        timer.advanceClock(10);

        assertThat(purgatory.listPending(10, PendingOrder.OLDEST_FIRST)).singleElement()
                .extracting(PendingOperation::timeLeftMs).isEqualTo(4_990L);
        purgatory.close();
        assertThat(purgatory.listPending(10, PendingOrder.OLDEST_FIRST)).isEmpty();
    }

    @Test
    void listPending_keysAsTheRendererShowsThem_truncatedByDefault_andAFailingRendererShowsQuestionMarks() {
        String longKey = "x".repeat(100);
        purgatory.tryCompleteElseWatch(new Op(5_000), List.of(longKey, "alice@example.com"));

        assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST).get(0).keys())
                .containsExactly("x".repeat(64) + "…", "alice@example.com");
        assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST, KeyRenderer.HIDDEN).get(0).keys())
                .containsExactly("*", "*");
        assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST, KeyRenderer.truncated(3)).get(0).keys())
                .containsExactly("xxx…", "ali…");
        assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST, key -> null).get(0).keys())
                .containsExactly("?", "?");
        try (LogCapture logs = new LogCapture(UserCode.LOGGER)) {
            KeyRenderer failing = key -> {
                throw new IllegalStateException("renderer down");
            };
            assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST, failing).get(0).keys())
                    .containsExactly("?", "?");
            assertThat(logs.events()).as("each failure logged, the list read whole").hasSize(2);
        }
        assertThat(purgatory.stats().pending()).isEqualTo(1);
    }

    @Test
    void listPending_ofKeyedWaits_showsTheirKindKeysAndPositions() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("keyed").timer(timer).build();
        try (waits) {
            CompletableFuture<String> positioned = waits.on("orders").atLeast(42).await(Duration.ofSeconds(5));
            CompletableFuture<String> onTwo = waits.onAny(List.of("a", "b")).await(Duration.ofSeconds(9));

            assertThat(waits.listPending(5, PendingOrder.SOONEST_DUE_FIRST)).containsExactly(
                    new PendingOperation("KeyedWait", List.of("orders"), 0, 5_000, 42L, false, null),
                    new PendingOperation("KeyedWait", List.of("a", "b"), 0, 9_000, null, false, null));
            assertThat(positioned).isNotDone();
            assertThat(onTwo).isNotDone();
        }
    }

    @Test
    void listPending_ofAPurgatoryWithoutATimer_showsNoTimeLeft() {
        DelayedOperationPurgatory<Op> untimed = DelayedOperationPurgatory.<Op>builder("untimed")
                .timerEnabled(false).reaperEnabled(false).build();
        try (untimed) {
            untimed.tryCompleteElseWatch(new Op(5_000), List.of("k"));

            assertThat(untimed.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).singleElement()
                    .extracting(PendingOperation::timeLeftMs).isEqualTo(-1L);
        }
    }

    @Test
    void listPending_badArguments_areRefusedNamingThem() {
        assertThat(purgatory.listPending(0, PendingOrder.OLDEST_FIRST)).isEmpty();
        assertThatThrownBy(() -> purgatory.listPending(-1, PendingOrder.OLDEST_FIRST))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be >= 0: -1");
        assertThatThrownBy(() -> purgatory.listPending(1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("order");
        assertThatThrownBy(() -> purgatory.listPending(1, PendingOrder.OLDEST_FIRST, null))
                .isInstanceOf(NullPointerException.class).hasMessage("keys");
        assertThatThrownBy(() -> KeyRenderer.truncated(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxChars must be >= 1: 0");
    }
}
