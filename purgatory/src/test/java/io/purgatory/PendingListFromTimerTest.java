package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.PendingListTest.Op;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code SOONEST_DUE_FIRST} read from the timer's buckets (PendingList.fromTimer, TimerEngine E11):
 * on a timer whose reaper is parked holding the driver lock, on a runtime shared with another
 * purgatory whose operations are due sooner, while other threads submit and settle, and from an
 * expiry on the driving thread, where the timer cannot be read and every list is walked instead.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // a hang guard
class PendingListFromTimerTest {

    @Test
    void listPending_soonestDueOnADrivenRuntime_isTheTimeoutsOrder_ofItsOwnOperationsOnly() {
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("listing").build();
             DelayedOperationPurgatory<Op> mine =
                     DelayedOperationPurgatory.<Op>builder("mine").runtime(runtime).build();
             DelayedOperationPurgatory<Op> other = DelayedOperationPurgatory.<Op>builder("other").runtime(runtime)
                     .build()) {
            for (int i = 0; i < 300; i++) {
                other.tryCompleteElseWatch(new Op(60_000 + i), List.of("other-" + i));
            }
            List<Integer> order = new ArrayList<>();
            for (int k = 0; k < 500; k++) {
                order.add(k);
            }
            Collections.shuffle(order, new Random(7));
            for (int k : order) { // timeouts a second apart: the due order is the timeouts' order
                mine.tryCompleteElseWatch(new Op(100_000 + k * 1_000L), List.of("mine-" + k, "shared-" + (k % 7)));
            }
            for (int round = 0; round < 100; round++) { // each asks the parked reaper anew
                List<PendingOperation> listed = mine.listPending(20, PendingOrder.SOONEST_DUE_FIRST);
                assertThat(listed).extracting(p -> p.keys().get(0))
                        .containsExactlyElementsOf(order.stream().sorted().limit(20).map(k -> "mine-" + k).toList());
                for (int i = 0; i < listed.size(); i++) {
                    assertThat(listed.get(i).keys()).containsExactly("mine-" + i, "shared-" + (i % 7));
                    long timeout = 100_000 + i * 1_000L;
                    assertThat(listed.get(i).timeLeftMs()).isBetween(timeout - 60_000, timeout);
                }
            }
            assertThat(other.listPending(5, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .containsExactly("other-0", "other-1", "other-2", "other-3", "other-4");
        }
    }

    @Test
    void listPending_soonestDueWhileOthersSubmitAndSettle_listsEachOnceInDueOrder_noneSettledBeforeTheCall()
            throws Exception {
        try (DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("churned").build()) {
            List<Op> standing = new ArrayList<>();
            for (int k = 0; k < 2_000; k++) {
                Op op = new Op(200_000 + k * 10L);
                standing.add(op);
                purgatory.tryCompleteElseWatch(op, List.of("standing-" + k));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> churnFailure = new AtomicReference<>();
            Thread churn = new Thread(() -> {
                Random random = new Random(11);
                try {
                    while (!stop.get()) {
                        Op op = new Op(100_000 + random.nextInt(200_000)); // some sooner than every standing one
                        purgatory.tryCompleteElseWatch(op, List.of("churn-" + random.nextInt(50)));
                        if (random.nextBoolean()) {
                            op.cancel();
                        }
                        purgatory.checkAndComplete("churn-" + random.nextInt(50));
                    }
                } catch (Throwable t) {
                    churnFailure.set(t);
                }
            }, "churn");
            churn.start();
            try {
                for (int round = 0; round < 300; round++) {
                    if (round == 150) { // half the standing ones settle before the later lists
                        for (int k = 0; k < 1_000; k++) {
                            standing.get(k).cancel();
                        }
                    }
                    List<PendingOperation> listed = purgatory.listPending(50, PendingOrder.SOONEST_DUE_FIRST);
                    assertThat(listed).hasSize(50);
                    Set<String> seen = new HashSet<>();
                    long previous = 0;
                    for (PendingOperation p : listed) {
                        String key = p.keys().get(0);
                        assertThat(seen.add(key + "@" + p.ageMs() + "/" + p.timeLeftMs())).as("once: %s", p).isTrue();
                        assertThat(p.timeLeftMs()).as("due order: %s", listed).isGreaterThanOrEqualTo(previous - 2);
                        previous = p.timeLeftMs();
                        if (round > 150 && key.startsWith("standing-")) {
                            assertThat(Integer.parseInt(key.substring("standing-".length()))).as("settled before")
                                    .isGreaterThanOrEqualTo(1_000);
                        }
                    }
                }
            } finally {
                stop.set(true);
                churn.join();
            }
            assertThat(churnFailure.get()).isNull();
        }
    }

    @Test
    void listPending_soonestDueFromAnExpiryOnTheDrivingThread_walksTheListsInstead_andIsRight() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<Op> purgatory =
                     DelayedOperationPurgatory.<Op>builder("from-expiry").timer(timer).build()) {
            AtomicReference<List<PendingOperation>> seen = new AtomicReference<>();
            Op lister = new Op(5) {
                @Override
                protected void onExpiration() {
                    seen.set(purgatory.listPending(3, PendingOrder.SOONEST_DUE_FIRST));
                }
            };
            purgatory.tryCompleteElseWatch(lister, List.of("lister"));
            for (int k = 9; k >= 0; k--) {
                purgatory.tryCompleteElseWatch(new Op(1_000 + k), List.of("k" + k));
            }
            timer.advanceClock(5);
            assertThat(seen.get()).isNotNull().extracting(p -> p.keys().get(0)).containsExactly("k0", "k1", "k2");
            assertThat(seen.get()).extracting(PendingOperation::timeLeftMs).containsExactly(995L, 996L, 997L);
        }
    }
}
