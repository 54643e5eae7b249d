package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 11, item 3: one delay rule for timer and purgatory (timer-core's DelayRuleTest checks it on
 * TimerTask). A delay of zero or less is due now: the operation expires as soon as it is watched,
 * unless its tries complete it. A delay above Timer.MAX_DELAY_MS saturates, so Long.MAX_VALUE
 * means "never". Checked on DelayedOperation, DelayedCondition and DelayedFuture alike.
 */
class PurgatoryDelayRuleTest {

    private static final long A_THOUSAND_YEARS_MS = TimeUnit.DAYS.toMillis(365L * 1000);

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<DelayedOperation> purgatory =
            DelayedOperationPurgatory.<DelayedOperation>builder("delays").timer(timer).reaperEnabled(false).build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void delayedOperation_delayZeroOrLess_expiresAsSoonAsItIsWatched(long delayMs) {
        HookOp op = new HookOp(delayMs);

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(op.callbackCounts()).isEqualTo("1,1,0");
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void delayedOperation_delayZeroButCompletableAtOnce_completes() {
        HookOp op = new HookOp(0);
        op.completable = true;

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isTrue();

        assertThat(op.callbackCounts()).isEqualTo("1,0,0");
    }

    @ParameterizedTest
    @ValueSource(longs = {Timer.MAX_DELAY_MS, Timer.MAX_DELAY_MS + 1, Long.MAX_VALUE})
    void delayedOperation_hugeDelay_neverExpiresAndStillCompletes(long delayMs) {
        HookOp op = new HookOp(delayMs);
        purgatory.tryCompleteElseWatch(op, List.of("k"));

        timer.advanceClock(A_THOUSAND_YEARS_MS);

        assertThat(op.isCompleted()).isFalse();
        assertThat(op.delayMs()).as("kept as given").isEqualTo(delayMs);
        op.completable = true;
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);
        assertThat(timer.size()).isZero();
    }

    @Test
    void delayedCondition_delayZeroOrLessAndLongMaxValue_followTheRule() {
        CompletableFuture<Outcome> now = DelayedCondition.await(purgatory, List.of("k"), -5, () -> false);
        CompletableFuture<Outcome> never = DelayedCondition.await(purgatory, List.of("k"), Long.MAX_VALUE, () -> false);

        timer.advanceClock(A_THOUSAND_YEARS_MS);

        assertThat(now).isCompletedWithValue(Outcome.EXPIRED);
        assertThat(never).isNotDone();
    }

    @Test
    void delayedFuture_delayZeroOrLessAndLongMaxValue_followTheRule() {
        try (DelayedFuturePurgatory futures = new DelayedFuturePurgatory(DelayedOperationPurgatory
                .<DelayedFuture<?>>builder("future-delays").timer(timer).reaperEnabled(false))) {
            CompletableFuture<Integer> pendingNow = new CompletableFuture<>();
            CompletableFuture<Integer> pendingNever = new CompletableFuture<>();
            DelayedFuture<Integer> now = futures.tryCompleteElseWatch(0, List.of(pendingNow), () -> { });
            DelayedFuture<Integer> never =
                    futures.tryCompleteElseWatch(Long.MAX_VALUE, List.of(pendingNever), () -> { });

            timer.advanceClock(A_THOUSAND_YEARS_MS);

            assertThat(now.outcome()).isEqualTo(Outcome.EXPIRED);
            assertThat(pendingNow).isCompletedExceptionally();
            assertThat(pendingNow.handle((v, e) -> e)).isCompletedWithValueMatching(e -> e instanceof TimeoutException);
            assertThat(never.isCompleted()).isFalse();
            pendingNever.complete(1);
        }
    }
}
