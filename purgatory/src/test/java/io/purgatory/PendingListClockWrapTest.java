package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.PendingListTest.Op;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * listPending on a clock whose readings pass Long.MAX_VALUE between two watches (the Clock's
 * contract: a reading may be near it, comparisons are by subtraction): the watch times signed
 * around the list's reading (OperationState.watchedAtNanos) and the ranks made of them.
 */
class PendingListClockWrapTest {

    private final ManualClock clock = new ManualClock(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(5));
    private final ManualTimer timer = new ManualTimer(clock);
    private final DelayedOperationPurgatory<Op> purgatory =
            DelayedOperationPurgatory.<Op>builder("wrapping").timer(timer).build();

    @AfterEach
    void close() {
        purgatory.close();
        timer.close();
    }

    /** Watches "before" 5 ms before the wrap (due in 100 ms), "after" 5 ms past it (due in 50 ms), reads 1 ms later. */
    private void watchAcrossTheWrap() {
        purgatory.tryCompleteElseWatch(new Op(100), List.of("before"));
        timer.advanceClock(10);
        purgatory.tryCompleteElseWatch(new Op(50), List.of("after"));
        timer.advanceClock(1);
    }

    @Test
    void listPending_oldestFirstAcrossTheClocksWrap_isTheWatchOrder_withTheAgesOfTheClock() {
        watchAcrossTheWrap();
        List<PendingOperation> listed = purgatory.listPending(2, PendingOrder.OLDEST_FIRST);
        assertThat(listed).extracting(p -> p.keys().get(0)).containsExactly("before", "after");
        assertThat(listed).extracting(PendingOperation::ageMs).containsExactly(11L, 1L);
        assertThat(purgatory.listPending(1, PendingOrder.OLDEST_FIRST)).extracting(p -> p.keys().get(0))
                .containsExactly("before");
    }

    @Test
    void listPending_soonestDueFromTheTimerAcrossTheClocksWrap_isTheDueOrder() {
        watchAcrossTheWrap();
        List<PendingOperation> listed = purgatory.listPending(2, PendingOrder.SOONEST_DUE_FIRST);
        assertThat(listed).extracting(p -> p.keys().get(0)).containsExactly("after", "before");
        assertThat(listed).extracting(PendingOperation::timeLeftMs).containsExactly(49L, 89L);
    }

    @Test
    void listPending_soonestDueByTheWalkAcrossTheClocksWrap_isTheDueOrder() {
        watchAcrossTheWrap();
        purgatory.tryCompleteElseWatch(new Op(Long.MAX_VALUE), List.of("never")); // off the timer: the lists walked
        List<PendingOperation> listed = purgatory.listPending(3, PendingOrder.SOONEST_DUE_FIRST);
        assertThat(listed).extracting(p -> p.keys().get(0)).containsExactly("after", "before", "never");
        assertThat(purgatory.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                .containsExactly("after");
    }

    @Test
    void listPending_soonestDueByTheWalk_aDueTimePastLongMaxValue_ranksAfterANearerOne() {
        purgatory.tryCompleteElseWatch(new Op(TimeUnit.SECONDS.toMillis(2_000)), List.of("soon"));
        timer.advanceClock(TimeUnit.SECONDS.toMillis(1_000)); // the next watch time is 10^12 ns after the first
        purgatory.tryCompleteElseWatch(new Op(Long.MAX_VALUE / 1_000_000 - 1), List.of("far")); // 292 years
        purgatory.tryCompleteElseWatch(new Op(Long.MAX_VALUE), List.of("never"));
        List<PendingOperation> listed = purgatory.listPending(4, PendingOrder.SOONEST_DUE_FIRST); // 3 < 4: walked
        assertThat(listed).extracting(p -> p.keys().get(0)).first().isEqualTo("soon");
        assertThat(listed).extracting(p -> p.keys().get(0)).containsExactlyInAnyOrder("soon", "far", "never");
    }
}
