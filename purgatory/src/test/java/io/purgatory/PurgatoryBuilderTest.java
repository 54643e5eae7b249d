package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerSettings;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The builder's validation and what each setting does. */
class PurgatoryBuilderTest {

    @Test
    void builder_nullOrBlankName_throwsNamingName() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
    }

    @Test
    void shards_notAPowerOfTwoOrOutOfRange_throwsNamingShards() {
        PurgatoryBuilder<MockOperation> b = DelayedOperationPurgatory.builder("b");
        for (int bad : new int[] {-1, 0, 3, 6, 1000, 1 << 17}) {
            assertThatThrownBy(() -> b.shards(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("shards")
                    .hasMessageContaining(String.valueOf(bad));
        }
    }

    @Test
    void shards_one_holdsEveryKeyInOneShard() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("one")
                .shards(1).timer(timer).reaperEnabled(false).build()) {
            MockOperation a = new MockOperation(100);
            MockOperation b = new MockOperation(100);
            p.tryCompleteElseWatch(a, List.of("x", "y"));
            p.tryCompleteElseWatch(b, List.of("y", "z"));
            assertThat(p.watched()).isEqualTo(4);
            assertThat(p.watchedKeys()).isEqualTo(3);
            p.engine().checkInvariants();

            b.completable = true;
            assertThat(p.checkAndComplete("z")).isEqualTo(1);

            assertThat(p.watched()).isEqualTo(2);
            assertThat(p.watchedKeys()).isEqualTo(2);
            p.engine().checkInvariants();
        }
    }

    @Test
    void shards_largestAllowed_isAccepted() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("big")
                .shards(1 << 16).timerEnabled(false).reaperEnabled(false).build()) {
            p.tryCompleteElseWatch(new MockOperation(100), List.of("k"));
            assertThat(p.watched()).isEqualTo(1);
            p.engine().checkInvariants();
        }
    }

    @Test
    void numericSettings_outOfRange_throwNamingTheSetting() {
        PurgatoryBuilder<MockOperation> b = DelayedOperationPurgatory.builder("b");
        assertThatThrownBy(() -> b.maxPending(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPending");
        assertThatThrownBy(() -> b.shards(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards");
        assertThatThrownBy(() -> b.timerSettings(TimerSettings.DEFAULT.withTickMs(0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tickMs");
        assertThatThrownBy(() -> b.timerSettings(TimerSettings.DEFAULT.withWheelSize(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wheelSize");
    }

    @Test
    void objectSettings_null_throwNamingTheSetting() {
        PurgatoryBuilder<MockOperation> b = DelayedOperationPurgatory.builder("b");
        assertThatThrownBy(() -> b.timer(null)).hasMessageContaining("timer");
        assertThatThrownBy(() -> b.expirationExecutor(null)).hasMessageContaining("executor");
        assertThatThrownBy(() -> b.metrics(null)).hasMessageContaining("factory");
        assertThatThrownBy(() -> b.errorHandler(null)).hasMessageContaining("errorHandler");
        assertThatThrownBy(() -> b.closePolicy(null)).hasMessageContaining("closePolicy");
        assertThatThrownBy(() -> b.clock(null)).hasMessageContaining("clock");
        assertThatThrownBy(() -> b.timerSettings(null)).hasMessageContaining("timerSettings");
    }

    @Test
    void build_chainWithoutTypeWitness_infersTheOperationTypeFromTheAssignment() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.builder("inferred").timer(timer)
                .reaperEnabled(false).build();
        try (DelayedFuturePurgatory futures = new DelayedFuturePurgatory(
                DelayedOperationPurgatory.builder("inferred-futures").timer(timer).reaperEnabled(false))) {
            MockOperation op = new MockOperation(100);
            p.tryCompleteElseWatch(op, List.of("k"));

            List<MockOperation> cancelled = p.cancelForKey("k");

            assertThat(cancelled).containsExactly(op);
            assertThat(futures.name()).isEqualTo("inferred-futures");
        } finally {
            p.close();
            timer.close();
        }
    }

    @Test
    void build_givenTimerWithTimerDisabled_throws() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b")
                .timer(new ManualTimer()).reaperEnabled(false).timerEnabled(false).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timerEnabled");
    }

    @Test
    void build_manualTimerWithReaperEnabled_throws() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b")
                .timer(new ManualTimer()).reaperEnabled(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ManualTimer").hasMessageContaining("reaperEnabled(true)");
    }

    @Test
    void build_manualTimerAlone_startsNoThreadAndExpiresOnTheAdvancingThread() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("manual")
                .timer(timer).build()) {
            MockOperation op = new MockOperation(10);
            p.tryCompleteElseWatch(op, List.of("k"));
            assertThat(p.engine().runtime().driver()).as("a ManualTimer is advanced by the test: no reaper").isNull();

            timer.advanceClock(10);

            assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        }
    }

    @Test
    void build_ownTimerOnAManualClock_isRefusedWithWhatToUseInstead() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b")
                .clock(new ManualClock()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clock: a ManualClock")
                .hasMessageContaining("timer(new ManualTimer(clock))");
        assertThatThrownBy(() -> KeyedWaits.builder("w").clock(new ManualClock()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timer(new ManualTimer(clock))");
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").clock(new ManualClock()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timer(new ManualTimer(clock))");
    }

    @Test
    void build_givenTimerWithOwnTimerSettings_throws() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b")
                    .timerSettings(TimerSettings.DEFAULT.withTickMs(5))
                    .timer(new ManualTimer()).reaperEnabled(false).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("timer(...) cannot be combined with [timerSettings]");
            assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b")
                    .expirationExecutor(executor).timer(new ManualTimer()).reaperEnabled(false).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expirationExecutor");
        } finally {
            executor.shutdown();
        }
    }

    @Test
    void build_timerDisabledWithOwnTimerSettings_throwsNamingThem() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b").timerEnabled(false)
                .timerSettings(TimerSettings.DEFAULT.withTickMs(5)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timerEnabled(false) cannot be combined with [timerSettings]");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("b").timerEnabled(false)
                    .expirationExecutor(executor).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("timerEnabled(false) cannot be combined with [expirationExecutor]");
        } finally {
            executor.shutdown();
        }
    }

    @Test
    void build_givenTimer_usesItAndLeavesItOpenOnClose() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("given")
                .timer(timer).reaperEnabled(false).build();
        p.tryCompleteElseWatch(new MockOperation(100), List.of("k"));
        assertThat(EngineInternals.timer(p.engine().runtime())).isSameAs(timer);
        assertThat(timer.size()).isEqualTo(1);

        p.close();

        assertThat(timer.size()).as("the closed purgatory's operations left the timer").isZero();
        RanTask other = new RanTask(10);
        timer.add(other); // the timer is still open
        timer.advanceClock(10);
        assertThat(other.runs).hasValue(1);
        timer.close();
    }

    @Test
    void build_defaults_ownSystemTimerIsClosedWithThePurgatory() {
        DelayedOperationPurgatory<MockOperation> p = new DelayedOperationPurgatory<>("defaults");
        assertThat(EngineInternals.timer(p.engine().runtime())).isInstanceOf(SystemTimer.class);
        assertThat(p.engine().runtime().driver()).as("no thread before the first submission").isNull();
        MockOperation op = new MockOperation(100_000);
        p.tryCompleteElseWatch(op, List.of("k"));
        assertThat(p.engine().runtime().driver()).isNotNull();
        op.completable = true;
        assertThat(p.checkAndComplete("k")).isEqualTo(1);

        p.close();

        assertThatThrownBy(() -> EngineInternals.timer(p.engine().runtime()).add(new RanTask(10)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void build_timerDisabled_watchesOperationsWithoutATimer() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("no-timer")
                .timerEnabled(false).reaperEnabled(false).build()) {
            MockOperation op = new MockOperation(1);

            assertThat(p.tryCompleteElseWatch(op, List.of("k"))).isFalse();

            assertThat(EngineInternals.timer(p.engine().runtime()).size()).as("nothing on the idle timer").isZero();
            assertThat(p.engine().runtime().driver()).isNull();
            assertThat(p.numDelayed()).isEqualTo(1);
            op.completable = true;
            assertThat(p.checkAndComplete("k")).isEqualTo(1);
            assertThat(op.callbacks()).containsExactly("onComplete");
        }
    }

    @Test
    void build_reaperDisabled_startsNoReaper() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("no-reaper")
                .reaperEnabled(false).build()) {
            p.tryCompleteElseWatch(new MockOperation(100_000), List.of("k"));

            assertThat(p.engine().runtime().driver()).isNull();
            assertThat(TestThreads.findThread("ExpirationReaper-no-reaper")).isNull();
        }
    }

    @Test
    void build_expirationExecutorGiven_runsExpirationsThereAndLeavesItRunning() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "custom-expiration"));
        try {
            AtomicReference<String> expiredOn = new AtomicReference<>();
            CountDownLatch expired = new CountDownLatch(1);
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("custom")
                    .expirationExecutor(executor).timerSettings(TimerSettings.DEFAULT.withWheelSize(8)).build();
            p.tryCompleteElseWatch(new MockOperation(1) {
                @Override
                public void onExpiration() {
                    expiredOn.set(Thread.currentThread().getName());
                    expired.countDown();
                }
            }, List.of("k"));

            TestThreads.await(expired, "expiration");
            p.close();

            assertThat(expiredOn.get()).isEqualTo("custom-expiration");
            assertThat(executor.isShutdown()).isFalse();
        } finally {
            executor.shutdownNow();
        }
    }
}
