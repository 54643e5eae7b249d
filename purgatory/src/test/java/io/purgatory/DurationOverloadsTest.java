package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Duration overloads of the purgatory's public API: each reads its Duration by the duration
 * rule of {@code Timer} (rounded up to whole ms, saturating) and names a null argument.
 */
class DurationOverloadsTest {

    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<DelayedOperation> purgatory =
            DelayedOperationPurgatory.builder("durations").timer(timer).reaperEnabled(false).build();
    private final AtomicBoolean done = new AtomicBoolean();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void delayedOperation_duration_isItsDelayInMillisRoundedUp() {
        assertThat(new DurationOperation(Duration.ofSeconds(5)).delayMs()).isEqualTo(5_000);
        assertThat(new DurationOperation(Duration.ofNanos(1)).delayMs()).isEqualTo(1);
        assertThat(new DurationOperation(FOREVER).delayMs()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> new DurationOperation(null))
                .isInstanceOf(NullPointerException.class).hasMessage("delay");
    }

    @Test
    void delayedCondition_oneNanosecondTimeout_isNotDueAtOnceAndExpiresAfterOneMillisecond() {
        DelayedCondition wait = new DelayedCondition(Duration.ofNanos(1), done::get);

        purgatory.tryCompleteElseWatch(wait, List.of("k"));
        assertThat(wait.future()).as("rounded up, not due now").isNotDone();
        timer.advanceClock(Duration.ofNanos(1));

        assertThat(wait.future()).isCompletedWithValue(Outcome.EXPIRED);
    }

    @Test
    void delayedCondition_foreverTimeout_neverExpires() {
        DelayedCondition wait = new DelayedCondition(FOREVER, done::get);

        purgatory.tryCompleteElseWatch(wait, List.of("k"));
        timer.advanceClock(Duration.ofDays(365_000));

        assertThat(wait.future()).isNotDone();
        done.set(true);
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);
        assertThat(wait.future()).isCompletedWithValue(Outcome.COMPLETED);
    }

    @Test
    void await_durationTimeout_expiresAtTheTimeoutNotBefore() {
        CompletableFuture<Outcome> future = DelayedCondition.await(purgatory, List.of("order-1"),
                Duration.ofMillis(999).plusNanos(1), done::get);

        timer.advanceClock(999);
        assertThat(future).isNotDone();
        timer.advanceClock(1);

        assertThat(future).isCompletedWithValue(Outcome.EXPIRED);
    }

    @Test
    void delayedCondition_nullTimeout_throwsNamingTimeout() {
        assertThatThrownBy(() -> new DelayedCondition((Duration) null, done::get))
                .isInstanceOf(NullPointerException.class).hasMessage("timeout");
        assertThatThrownBy(() -> DelayedCondition.await(purgatory, List.of("k"), (Duration) null, done::get))
                .isInstanceOf(NullPointerException.class).hasMessage("timeout");
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void delayedFuturePurgatory_durationTimeout_failsPendingFuturesAtTheTimeout() {
        ManualTimer futureTimer = new ManualTimer();
        try (DelayedFuturePurgatory futures = new DelayedFuturePurgatory(
                DelayedOperationPurgatory.builder("futures").timer(futureTimer)
                        .reaperEnabled(false))) {
            CompletableFuture<String> pending = new CompletableFuture<>();
            AtomicBoolean answered = new AtomicBoolean();

            DelayedFuture<String> op = futures.tryCompleteElseWatch(Duration.ofMillis(10), List.of(pending),
                    () -> answered.set(true));
            assertThat(op.delayMs()).isEqualTo(10);
            futureTimer.advanceClock(Duration.ofMillis(10));

            assertThat(answered).isTrue();
            assertThat(pending).isCompletedExceptionally();
            assertThatThrownBy(() -> futures.tryCompleteElseWatch((Duration) null, List.of(pending), () -> { }))
                    .isInstanceOf(NullPointerException.class).hasMessage("timeout");
        } finally {
            futureTimer.close();
        }
    }

    @Test
    void builderTick_duration_checkedLikeTickMs() {
        TimerSettings s = TimerSettings.DEFAULT;
        assertThatThrownBy(() -> s.withTick(null)).isInstanceOf(NullPointerException.class).hasMessage("tick");
        assertThatThrownBy(() -> s.withTick(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tickMs");
        assertThatThrownBy(() -> s.withTick(FOREVER)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tickMs");
        assertThat(s.withTick(Duration.ofNanos(1)).tickMs()).as("rounded up to a whole ms").isOne();
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("tick")
                .timerSettings(s.withTick(Duration.ofNanos(1))).reaperEnabled(false).build()) {
            assertThat(p.name()).isEqualTo("tick");
        }
    }

    /** An operation built with a Duration; never completes by itself. */
    private static final class DurationOperation extends DelayedOperation {
        DurationOperation(Duration delay) {
            super(delay);
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
}
