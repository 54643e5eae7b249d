package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.PendingListTest.Op;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code SOONEST_DUE_FIRST} read from a timer shared by a purgatory and keyed waits (their
 * early-event windows, late-event memory and waits are all entries on it), with positions and
 * tenants: each lists its own pending ones only, in due order, with their keys and positions; and
 * a purgatory with no timer, or whose runtime closed, lists without asking any driver.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard
class PendingListSharedTimerTest {

    @Test
    void listPending_soonestDueOnATimerSharedWithKeyedWaitsAndTheirWindows_listsEachOnesOwnInDueOrder() {
        ManualTimer shared = new ManualTimer();
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("shared-listing").timer(shared).build()) {
            KeyedWaits<String, String> waits = KeyedWaits.builder("waits").runtime(runtime)
                    .retainEvents(Duration.ofMillis(5), 100).build();
            DelayedOperationPurgatory<Op> ops = DelayedOperationPurgatory.<Op>builder("ops").runtime(runtime)
                    .tenants(op -> "t", 1_000).build();
            for (int i = 0; i < 20; i++) {
                waits.complete("early-" + i, "v"); // a window on the timer, due in 5 ms: sooner than all
            }
            CompletableFuture<String> w30 = waits.on("w30").atLeast(7).await(Duration.ofMillis(30));
            CompletableFuture<String> w10 = waits.await("w10", Duration.ofMillis(10));
            CompletableFuture<String> w20 = waits.awaitAny(List.of("w20a", "w20b"), Duration.ofMillis(20), v -> true);
            for (int k = 5; k >= 0; k--) {
                ops.tryCompleteElseWatch(new Op(15 + k), List.of("op-" + k, "shared"));
            }
            Op settled = new Op(1);
            ops.tryCompleteElseWatch(settled, List.of("settled"));
            settled.forceComplete();
            assertThat(ops.listPending(3, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .containsExactly("op-0", "op-1", "op-2");
            assertThat(ops.listPending(6, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .containsExactly("op-0", "op-1", "op-2", "op-3", "op-4", "op-5");
            List<PendingOperation> listedWaits = waits.listPending(2, PendingOrder.SOONEST_DUE_FIRST);
            assertThat(listedWaits).extracting(PendingOperation::keys)
                    .containsExactly(List.of("w10"), List.of("w20a", "w20b"));
            List<PendingOperation> allWaits = waits.listPending(3, PendingOrder.SOONEST_DUE_FIRST);
            assertThat(allWaits).extracting(PendingOperation::keys)
                    .containsExactly(List.of("w10"), List.of("w20a", "w20b"), List.of("w30"));
            assertThat(allWaits.get(2).position()).isEqualTo(7L);
            assertThat(allWaits).extracting(PendingOperation::timeLeftMs).containsExactly(10L, 20L, 30L);
            shared.advanceClock(12); // the windows end, w10 expires
            assertThat(w10).isCompletedExceptionally();
            assertThat(waits.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(PendingOperation::keys)
                    .containsExactly(List.of("w20a", "w20b"));
            assertThat(ops.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(PendingOperation::timeLeftMs)
                    .containsExactly(3L);
            waits.complete("w20b", "done");
            assertThat(w20).isCompletedWithValue("done");
            assertThat(waits.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(PendingOperation::keys)
                    .containsExactly(List.of("w30"));
            assertThat(w30).isNotDone();
        }
    }

    @Test
    void listPending_soonestDueWithoutATimer_walksTheLists_andShowsNoTimeLeft() {
        try (DelayedOperationPurgatory<Op> untimed = DelayedOperationPurgatory.<Op>builder("untimed")
                .timerEnabled(false).build()) {
            for (int k = 0; k < 4; k++) {
                untimed.tryCompleteElseWatch(new Op(10 - k), List.of("k" + k));
            }
            List<PendingOperation> listed = untimed.listPending(2, PendingOrder.SOONEST_DUE_FIRST);
            assertThat(listed).hasSize(2).extracting(PendingOperation::timeLeftMs).containsOnly(-1L);
        }
    }

    @Test
    void listPending_afterItsRuntimeClosed_isEmpty_andAsksNoDriver() {
        ManualTimer shared = new ManualTimer();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("closed-listing").timer(shared).build();
        DelayedOperationPurgatory<Op> ops = DelayedOperationPurgatory.<Op>builder("ops").runtime(runtime).build();
        for (int k = 0; k < 4; k++) {
            ops.tryCompleteElseWatch(new Op(10 + k), List.of("k" + k));
        }
        assertThat(ops.listPending(4, PendingOrder.SOONEST_DUE_FIRST)).hasSize(4);
        runtime.close();
        assertThat(ops.listPending(4, PendingOrder.SOONEST_DUE_FIRST)).isEmpty();
        shared.close();
        assertThat(ops.listPending(4, PendingOrder.SOONEST_DUE_FIRST)).isEmpty();
    }
}
