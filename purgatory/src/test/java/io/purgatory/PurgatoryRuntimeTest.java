package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Purgatories sharing one {@link PurgatoryRuntime}: each keeps its own operations, counters,
 * metrics and close; the runtime has one timer, one driver and one executor, runs every open
 * purgatory's purge policy, and closes the purgatories still open when it closes.
 */
class PurgatoryRuntimeTest {

    private final ManualTimer timer = new ManualTimer();
    private final PurgatoryRuntime runtime = PurgatoryRuntime.builder("shared").timer(timer).build();
    private final RecordingMetrics metrics = new RecordingMetrics();

    @AfterEach
    void tearDown() {
        runtime.close();
        timer.close();
    }

    private DelayedOperationPurgatory<MockOperation> onRuntime(String name, ClosePolicy policy) {
        return DelayedOperationPurgatory.builder(name).runtime(runtime).closePolicy(policy)
                .metrics(metrics).build();
    }

    @Test
    void advanceClock_twoPurgatoriesOnOneRuntime_eachExpiresItsOwnOperationsWithItsOwnCountersAndMetrics() {
        DelayedOperationPurgatory<MockOperation> orders = onRuntime("orders", ClosePolicy.EXPIRE);
        DelayedOperationPurgatory<MockOperation> payments = onRuntime("payments", ClosePolicy.EXPIRE);
        MockOperation order = new MockOperation(10);
        MockOperation payment = new MockOperation(20);
        orders.tryCompleteElseWatch(order, List.of("k"));
        payments.tryCompleteElseWatch(payment, List.of("k"));
        assertThat(timer.size()).as("one timer holds both").isEqualTo(2);

        timer.advanceClock(10);

        assertThat(order.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(payment.callbacks()).isEmpty();
        assertThat(orders.stats().expired()).isEqualTo(1);
        assertThat(payments.stats().expired()).isZero();
        assertThat(payments.numDelayed()).isEqualTo(1);
        assertThat(expiredCount("orders")).isEqualTo(1);
        assertThat(expiredCount("payments")).isZero();

        timer.advanceClock(10);

        assertThat(payment.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(orders.stats().expired()).isEqualTo(1);
        assertThat(payments.stats().expired()).isEqualTo(1);
        assertThat(expiredCount("payments")).isEqualTo(1);
        orders.engine().checkInvariants();
        payments.engine().checkInvariants();
    }

    @Test
    void close_onePurgatoryOfTwo_settlesOnlyItsOwnOperationsAndTheOtherKeepsExpiring() {
        DelayedOperationPurgatory<MockOperation> closing = onRuntime("closing", ClosePolicy.CANCEL);
        DelayedOperationPurgatory<MockOperation> staying = onRuntime("staying", ClosePolicy.EXPIRE);
        MockOperation mine = new MockOperation(100);
        MockOperation theirs = new MockOperation(100);
        closing.tryCompleteElseWatch(mine, List.of("k"));
        staying.tryCompleteElseWatch(theirs, List.of("k"));

        closing.close();

        assertThat(mine.callbacks()).containsExactly("onCancel");
        assertThat(theirs.callbacks()).isEmpty();
        assertThat(staying.numDelayed()).isEqualTo(1);
        assertThat(runtime.core().members()).containsExactly(staying.engine());
        assertThat(runtime.isClosed()).isFalse();
        assertThat(metrics.isBound("closing")).as("its metrics removed").isFalse();
        assertThat(metrics.isBound("staying")).isTrue();
        MockOperation later = new MockOperation(50);
        staying.tryCompleteElseWatch(later, List.of("k2"));

        timer.advanceClock(100);

        assertThat(theirs.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(later.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(staying.stats().expired()).isEqualTo(2);
        assertThat(closing.stats().cancelled()).isEqualTo(1);
        assertThat(closing.stats().expired()).isZero();
    }

    @Test
    void runtimeClose_purgatoriesOfEachClosePolicy_settlesEachByItsOwnAndLeavesAGivenTimerOpen() {
        DelayedOperationPurgatory<MockOperation> expiring = onRuntime("expiring", ClosePolicy.EXPIRE);
        DelayedOperationPurgatory<MockOperation> completing = onRuntime("completing", ClosePolicy.COMPLETE);
        DelayedOperationPurgatory<MockOperation> cancelling = onRuntime("cancelling", ClosePolicy.CANCEL);
        MockOperation expired = new MockOperation(100);
        MockOperation completed = new MockOperation(100);
        MockOperation cancelled = new MockOperation(100);
        expiring.tryCompleteElseWatch(expired, List.of("k"));
        completing.tryCompleteElseWatch(completed, List.of("k"));
        cancelling.tryCompleteElseWatch(cancelled, List.of("k"));

        runtime.close();

        assertThat(expired.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(completed.callbacks()).containsExactly("onComplete");
        assertThat(cancelled.callbacks()).containsExactly("onCancel");
        assertThat(List.of(expiring, completing, cancelling)).allMatch(DelayedOperationPurgatory::isClosed);
        assertThat(runtime.isClosed()).isTrue();
        assertThat(runtime.core().members()).isEmpty();
        assertThat(metrics.allClosed()).as("every purgatory removed its meters").isTrue();
        assertThat(timer.size()).isZero();
        RanTask other = new RanTask(1);
        timer.add(other); // the runtime does not close a timer it was given
        timer.advanceClock(1);
        assertThat(other.runs).hasValue(1);
    }

    @Test
    void closeRuntime_afterOneOfItsPurgatoriesClosed_closesOnlyTheOthersAndEachOnce() {
        DelayedOperationPurgatory<MockOperation> first = onRuntime("first", ClosePolicy.EXPIRE);
        DelayedOperationPurgatory<MockOperation> second = onRuntime("second", ClosePolicy.EXPIRE);
        MockOperation a = new MockOperation(100);
        MockOperation b = new MockOperation(100);
        first.tryCompleteElseWatch(a, List.of("k"));
        second.tryCompleteElseWatch(b, List.of("k"));
        first.close();
        assertThat(runtime.core().members()).containsExactly(second.engine());

        runtime.close();
        runtime.close();

        assertThat(a.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(b.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(first.stats().expired()).isEqualTo(1);
        assertThat(second.stats().expired()).isEqualTo(1);
        assertThat(second.isClosed()).isTrue();
    }

    @Test
    void build_onAClosedRuntime_throwsIseNamingTheRuntimeAndBindsNoMeters() {
        runtime.close();

        assertThatThrownBy(() -> onRuntime("late", ClosePolicy.EXPIRE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("runtime 'shared' is closed")
                .hasMessageContaining("'late'");
        assertThat(metrics.boundCount()).isZero();
        assertThat(runtime.core().members()).isEmpty();
    }

    @Test
    void build_metersOfThatNameAlreadyBound_leavesTheRuntimeAsItWas() {
        DelayedOperationPurgatory<MockOperation> first = onRuntime("same", ClosePolicy.EXPIRE);

        assertThatThrownBy(() -> onRuntime("same", ClosePolicy.EXPIRE)).isInstanceOf(IllegalStateException.class);

        assertThat(runtime.core().members()).containsExactly(first.engine());
    }

    @Test
    void submission_runtimeClosedDuringItsSecondTry_isSettledOnceByTheClosePolicy() {
        DelayedOperationPurgatory<MockOperation> p = onRuntime("racing", ClosePolicy.CANCEL);
        MockOperation op = new MockOperation(100) {
            @Override
            public boolean tryComplete() {
                boolean done = super.tryComplete();
                if (tryCompleteCalls.get() == 2) { // watched, not yet on the timer
                    runtime.close();
                }
                return done;
            }
        };

        assertThat(p.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(op.callbacks()).containsExactly("onCancel");
        assertThat(op.callbackUnderLockOrDuringTry).isFalse();
        assertThat(p.isClosed()).isTrue();
        assertThat(p.numDelayed()).isZero();
        assertThat(timer.size()).as("never added to the timer").isZero();
        p.engine().checkInvariants();
    }

    @Test
    void submission_sharedTimerClosedUnderTheRuntime_isSettledByTheClosePolicy() {
        DelayedOperationPurgatory<MockOperation> p = onRuntime("timer-gone", ClosePolicy.CANCEL);
        MockOperation op = new MockOperation(100);
        timer.close();

        assertThat(p.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(op.callbacks()).containsExactly("onCancel");
        assertThat(p.numDelayed()).isZero();
        p.engine().checkInvariants();
    }

    @Test
    void submissions_racingRuntimeClose_everyAcceptedOneIsSettledExactlyOnceByItsPurgatorysPolicy() throws Exception {
        for (int round = 0; round < 20; round++) {
            PurgatoryRuntime shared = PurgatoryRuntime.builder("race-" + round).build();
            DelayedOperationPurgatory<MockOperation> expiring = DelayedOperationPurgatory.builder("race-e-" + round)
                    .runtime(shared).build();
            DelayedOperationPurgatory<MockOperation> cancelling = DelayedOperationPurgatory.builder("race-c-" + round)
                    .runtime(shared).closePolicy(ClosePolicy.CANCEL).build();
            ConcurrentLinkedQueue<MockOperation> accepted = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<MockOperation> refused = new ConcurrentLinkedQueue<>();
            List<TestThreads.Work> work = new ArrayList<>();
            for (DelayedOperationPurgatory<MockOperation> p : List.of(expiring, cancelling)) {
                work.add(() -> {
                    for (int i = 0; i < 200; i++) {
                        MockOperation op = new MockOperation(600_000);
                        try {
                            p.tryCompleteElseWatch(op, List.of("k" + i % 7));
                            accepted.add(op);
                        } catch (IllegalStateException closed) {
                            refused.add(op);
                        }
                    }
                });
            }
            work.add(shared::close);

            TestThreads.runConcurrently("race", work);

            for (MockOperation op : accepted) {
                assertThat(op.callbacks()).hasSize(op.outcome() == Outcome.CANCELLED ? 1 : 2);
            }
            assertThat(accepted.stream().filter(op -> op.outcome() == Outcome.EXPIRED).count())
                    .isEqualTo(expiring.stats().expired());
            assertThat(accepted.stream().filter(op -> op.outcome() == Outcome.CANCELLED).count())
                    .isEqualTo(cancelling.stats().cancelled());
            assertThat(expiring.stats().expired() + cancelling.stats().cancelled()).isEqualTo(accepted.size());
            assertThat(refused).allMatch(op -> op.tryCompleteCalls.get() == 0 && op.callbacks().isEmpty());
            assertThat(expiring.numDelayed() + cancelling.numDelayed()).isZero();
        }
    }

    @Test
    void purgePolicies_ofEveryOpenPurgatory_runOnEachStepOfTheDriver() {
        DelayedOperationPurgatory<MockOperation> a = onRuntime("purged-a", ClosePolicy.EXPIRE);
        DelayedOperationPurgatory<MockOperation> b = onRuntime("purged-b", ClosePolicy.EXPIRE);
        DelayedOperationPurgatory<MockOperation> closed = onRuntime("purged-closed", ClosePolicy.EXPIRE);
        for (DelayedOperationPurgatory<MockOperation> p : List.of(a, b, closed)) {
            MockOperation op = new MockOperation(100);
            p.tryCompleteElseWatch(op, List.of("k"));
            op.forceComplete(); // its key's list, emptied, is kept for reuse: swept a clock second later
            assertThat(p.engine().counters().emptyLists()).isEqualTo(1);
        }
        closed.close();
        timer.advanceClock(1_000);

        EngineInternals.runPurgePolicies(runtime.core());

        assertThat(a.stats().purges()).isEqualTo(1);
        assertThat(b.stats().purges()).isEqualTo(1);
        assertThat(a.engine().counters().emptyLists()).isZero();
        assertThat(b.engine().counters().emptyLists()).isZero();
        assertThat(closed.stats().purges()).as("a closed purgatory left the runtime").isZero();
    }

    @Test
    void purgePolicies_onARealDriver_runAfterItsAdvances() {
        ManualClock clock = new ManualClock();
        try (PurgatoryRuntime driven = PurgatoryRuntime.builder("purging").clock(ReliabilitySupport.readingOf(clock))
                .build()) {
            List<DelayedOperationPurgatory<MockOperation>> purgatories = new ArrayList<>();
            for (String name : List.of("purging-a", "purging-b")) {
                DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.builder(name).runtime(driven)
                        .build();
                MockOperation op = new MockOperation(100_000);
                p.tryCompleteElseWatch(op, List.of("k")); // starts the driver
                op.forceComplete();
                purgatories.add(p);
            }

            clock.advance(Duration.ofSeconds(1)); // the driver's next step purges both

            ReliabilitySupport.awaitCondition("both purgatories purged",
                    () -> purgatories.stream().allMatch(p -> p.stats().purges() == 1));
            assertThat(purgatories).allMatch(p -> p.engine().counters().emptyLists() == 0);
        }
    }

    @Test
    void threads_manyPurgatoriesOnOneRuntime_startOneDriverAndOneExecutor() throws Exception {
        String name = "threads-shared";
        PurgatoryRuntime shared = PurgatoryRuntime.builder(name).build();
        List<DelayedOperationPurgatory<MockOperation>> purgatories = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            purgatories.add(DelayedOperationPurgatory.builder(name + "-p" + i).runtime(shared).build());
        }
        assertThat(ReliabilitySupport.libraryThreads(name)).as("no thread before the first submission").isEmpty();
        CountDownLatch expired = new CountDownLatch(purgatories.size());
        ConcurrentLinkedQueue<String> expiredOn = new ConcurrentLinkedQueue<>();
        for (DelayedOperationPurgatory<MockOperation> p : purgatories) {
            p.tryCompleteElseWatch(new MockOperation(1) {
                @Override
                public void onExpiration() {
                    expiredOn.add(Thread.currentThread().getName());
                    expired.countDown();
                }
            }, List.of("k"));
        }
        TestThreads.await(expired, "every purgatory's expiration");

        List<String> threads = ReliabilitySupport.libraryThreads(name);
        assertThat(threads).filteredOn(t -> t.startsWith("ExpirationReaper-"))
                .containsExactly("ExpirationReaper-" + name);
        assertThat(threads).filteredOn(t -> !t.startsWith("ExpirationReaper-"))
                .isNotEmpty().allMatch(t -> t.matches(name + "-expiration(-2)?"));
        assertThat(expiredOn).allMatch(t -> t.matches(name + "-expiration(-2)?"));
        Thread driver = ReliabilitySupport.findThread("ExpirationReaper-" + name);
        assertThat(driver.isDaemon()).isTrue();

        shared.close();

        assertThat(driver.isAlive()).isFalse();
        assertThat(purgatories).allMatch(DelayedOperationPurgatory::isClosed);
        ReliabilitySupport.assertNoLibraryThreadLeft(name);
    }

    @Test
    void build_runtimeOnAManualTimer_startsNoThread() {
        DelayedOperationPurgatory<MockOperation> p = onRuntime("manual-threads", ClosePolicy.EXPIRE);

        p.tryCompleteElseWatch(new MockOperation(10), List.of("k"));

        assertThat(runtime.core().driver()).isNull();
        assertThat(p.engine().runtime().driver()).isNull();
        assertThat(ReliabilitySupport.libraryThreads("shared")).isEmpty();
        assertThat(ReliabilitySupport.libraryThreads("manual-threads")).isEmpty();
    }

    @Test
    void sharedSystemTimer_operationOnTwoPurgatories_expiresInRealTime() throws Exception {
        try (PurgatoryRuntime shared = PurgatoryRuntime.builder("real-time")
                .timerSettings(TimerSettings.DEFAULT.withTick(Duration.ofMillis(1))).build();
             DelayedOperationPurgatory<DelayedCondition> a = DelayedOperationPurgatory.builder("real-a")
                     .runtime(shared).build();
             DelayedOperationPurgatory<DelayedCondition> b = DelayedOperationPurgatory.builder("real-b")
                     .runtime(shared).build()) {
            CompletableFuture<Outcome> first = DelayedCondition.await(a, List.of("k"), Duration.ofMillis(5),
                    () -> false);
            CompletableFuture<Outcome> second = DelayedCondition.await(b, List.of("k"), Duration.ofMillis(10),
                    () -> false);

            assertThat(first.get(TestThreads.BOUND_SECONDS, TimeUnit.SECONDS)).isEqualTo(Outcome.EXPIRED);
            assertThat(second.get(TestThreads.BOUND_SECONDS, TimeUnit.SECONDS)).isEqualTo(Outcome.EXPIRED);
            assertThat(a.stats().expired()).isEqualTo(1);
            assertThat(b.stats().expired()).isEqualTo(1);
        }
    }

    @Test
    void refusedExpirations_onASharedRuntime_areCountedByTheRuntimeAndReportedToItsHandler() throws Exception {
        ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
        // A clock the test moves (not a ManualClock, which an own timer refuses): the operation falls due only
        // once its submission returned. Due during it, its expiry would be finished by the submission, which
        // holds the operation's claim until it returns (OperationState O5), on the test's thread.
        AtomicLong nanos = new AtomicLong();
        try (PurgatoryRuntime refusing = PurgatoryRuntime.builder("refusing").clock(nanos::get)
                .expirationExecutor(command -> {
                    throw new RejectedExecutionException("expected by the test: full");
                })
                .errorHandler((task, error) -> reported.add(error)).build();
             DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.builder("refusing-p")
                     .runtime(refusing).build()) {
            CountDownLatch expired = new CountDownLatch(1);
            AtomicReference<String> expiredOn = new AtomicReference<>();
            p.tryCompleteElseWatch(new MockOperation(1) {
                @Override
                public void onExpiration() {
                    expiredOn.set(Thread.currentThread().getName());
                    expired.countDown();
                }
            }, List.of("k"));
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(2));

            TestThreads.await(expired, "the refused expiration, run on the driver");

            assertThat(expiredOn.get()).isEqualTo("ExpirationReaper-refusing");
            assertThat(refusing.expirationsRefused()).isEqualTo(1);
            assertThat(reported).singleElement().isInstanceOf(RejectedExecutionException.class);
            assertThat(p.stats().expirationsRefused()).as("counted by the runtime, not the purgatory").isZero();
        }
    }

    @Test
    void closeRuntime_givenExecutor_isLeftRunning() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            PurgatoryRuntime shared = PurgatoryRuntime.builder("given-executor").expirationExecutor(executor).build();
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.builder("given-executor-p")
                    .runtime(shared).build();
            p.tryCompleteElseWatch(new MockOperation(100_000), List.of("k"));

            shared.close();

            assertThat(p.isClosed()).isTrue();
            assertThat(executor.isShutdown()).isFalse();
        } finally {
            executor.shutdownNow();
        }
    }

    static Stream<Arguments> ownTimerSettings() {
        return Stream.of(
                setting("timer(...)", b -> b.timer(new ManualTimer())),
                setting("timerSettings", b -> b.timerSettings(TimerSettings.DEFAULT)),
                setting("timerSettings", b -> b.timerSettings(TimerSettings.DEFAULT.withTickMs(5))),
                setting("timerSettings",
                        b -> b.timerSettings(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(10)))),
                setting("expirationExecutor", b -> b.expirationExecutor(Runnable::run)),
                setting("clock", b -> b.clock(new ManualClock())),
                setting("timerEnabled(false)", b -> b.timerEnabled(false)),
                setting("reaperEnabled(false)", b -> b.reaperEnabled(false)));
    }

    private static Arguments setting(String name, UnaryOperator<PurgatoryBuilder<MockOperation>> set) {
        return Arguments.of(name, set);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ownTimerSettings")
    void build_runtimeWithASettingOfTheOwnTimer_throwsIaeNamingIt(String setting,
                                                                  UnaryOperator<PurgatoryBuilder<MockOperation>> set) {
        PurgatoryBuilder<MockOperation> b = set.apply(DelayedOperationPurgatory.<MockOperation>builder("conflict")
                .runtime(runtime));

        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("runtime(...) cannot be combined with [" + setting + "]");
        assertThat(runtime.core().members()).isEmpty();
    }

    @Test
    void build_runtimeWithSeveralSettingsOfTheOwnTimer_namesEachOnce() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("conflicts").timerSettings(TimerSettings.KAFKA)
                .timerSettings(TimerSettings.DEFAULT).expirationExecutor(Runnable::run).clock(new ManualClock())
                .runtime(runtime).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "runtime(...) cannot be combined with [timerSettings, expirationExecutor, clock]");
    }

    @Test
    void runtimeBuilder_manualTimerWithSettingsOfTheOwnTimer_throwsIaeNamingThem() {
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").timerSettings(TimerSettings.KAFKA)
                .clock(new ManualClock()).timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timer(...) cannot be combined with [timerSettings, clock]");
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").expirationExecutor(Runnable::run)
                .errorHandler((task, error) -> { }).expirationThreads(4).timerSettings(TimerSettings.DEFAULT)
                .timer(new ManualTimer()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[expirationExecutor, errorHandler, expirationThreads, timerSettings]");
    }

    @Test
    void runtimeBuilder_expirationThreadsWithAnExecutor_throwsIaeNamingBoth() {
        assertThatThrownBy(() -> PurgatoryRuntime.builder("r").expirationThreads(3).expirationExecutor(Runnable::run)
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("expirationExecutor cannot be combined with [expirationThreads]");
    }

    @Test
    void runtimeBuilder_badArguments_throwNamingThem() {
        assertThatThrownBy(() -> PurgatoryRuntime.builder(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThatThrownBy(() -> PurgatoryRuntime.builder(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        PurgatoryRuntime.Builder b = PurgatoryRuntime.builder("r");
        assertThatThrownBy(() -> b.timer(null)).hasMessage("timer");
        assertThatThrownBy(() -> b.timerSettings(null)).hasMessage("timerSettings");
        assertThatThrownBy(() -> b.expirationExecutor(null)).hasMessage("executor");
        assertThatThrownBy(() -> b.clock(null)).hasMessage("clock");
        assertThatThrownBy(() -> b.errorHandler(null)).hasMessage("errorHandler");
        assertThatThrownBy(() -> b.expirationThreads(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expirationThreads must be >= 1: 0");
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").runtime(null)).hasMessage("runtime");
    }

    private long expiredCount(String purgatory) {
        return metrics.isBound(purgatory) ? metrics.of(purgatory).count(Outcome.EXPIRED) : -1;
    }
}
