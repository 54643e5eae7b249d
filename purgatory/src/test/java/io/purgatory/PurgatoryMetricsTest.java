package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The metrics seam of the core, with no metrics library: what a {@link MetricsRecorderFactory}
 * is given to read, what its recorder is told (measured on the manual clock, exactly for waits of
 * months too), binding and unbinding, and a factory whose {@code create} closes the purgatory or
 * binds again: every recorder created is closed (promise 2 of docs/reliability.md). (The
 * Micrometer meters are tested in the purgatory-micrometer module.)
 */
class PurgatoryMetricsTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualTimer timer = new ManualTimer();
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final DelayedOperationPurgatory<MockOperation> purgatory = builder("metered").build();

    /** A recorder that counts its closes. */
    static final class CountingRecorder implements MetricsRecorder {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void recordSettled(Outcome outcome, long watchedNanos) {
        }

        @Override
        public void recordLateness(long latenessNanos) {
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
    }

    @Test
    void micrometer_isNotOnTheTestClassPath_soEveryTestOfThisModuleRunsWithoutIt() {
        assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void source_operationsWatchedAndSettled_readsPendingWatchedAndKeys() {
        MockOperation op1 = new MockOperation(100);
        MockOperation op2 = new MockOperation(100);
        assertGauges(0, 0, 0);

        purgatory.tryCompleteElseWatch(op1, List.of("a", "b"));
        purgatory.tryCompleteElseWatch(op2, List.of("b"));
        assertGauges(2, 3, 2);

        op1.forceComplete();
        assertGauges(1, 1, 1);

        timer.advanceClock(100);
        assertGauges(0, 0, 0);
    }

    @Test
    void recorder_operationExpiresAfter100ManualMs_isToldExpiredAfter100MsAndNotLate() {
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

        timer.advanceClock(100);

        RecordingMetrics.Recorder r = metrics.of("metered");
        assertThat(r.count(Outcome.EXPIRED)).isEqualTo(1);
        assertThat(r.totalNanos(Outcome.EXPIRED)).isEqualTo(100 * MS);
        assertThat(r.count(Outcome.COMPLETED)).isZero();
        assertThat(r.count(Outcome.CANCELLED)).isZero();
        assertThat(r.lateCount.sum()).isEqualTo(1);
        assertThat(r.lateMaxNanos.get()).isZero();
        assertThat(r.source.expired()).isEqualTo(1);
    }

    @Test
    void recorder_clockJumpsPastDeadline_isToldHowLateTheExpiryWas() {
        timer.advanceClock(7); // not at zero: any start reading works
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

        timer.advanceClock(150);

        RecordingMetrics.Recorder r = metrics.of("metered");
        assertThat(r.totalNanos(Outcome.EXPIRED)).isEqualTo(150 * MS);
        assertThat(r.lateMaxNanos.get()).isEqualTo(50 * MS);
    }

    @Test
    void recorder_completedAndCancelled_toldTimeWatchedByOutcome_firstTryCompletionsCountedApart() {
        MockOperation completed = new MockOperation(1_000);
        MockOperation cancelled = new MockOperation(1_000);
        MockOperation atOnce = new MockOperation(1_000);
        atOnce.completable = true;
        purgatory.tryCompleteElseWatch(completed, List.of("a"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("b"));
        purgatory.tryCompleteElseWatch(atOnce, List.of("c"));

        timer.advanceClock(30);
        completed.completable = true;
        purgatory.checkAndComplete("a");
        timer.advanceClock(20);
        purgatory.cancelForKey("b");

        RecordingMetrics.Recorder r = metrics.of("metered");
        assertThat(r.count(Outcome.COMPLETED)).as("never-watched operations are not timed").isEqualTo(1);
        assertThat(r.totalNanos(Outcome.COMPLETED)).isEqualTo(30 * MS);
        assertThat(r.count(Outcome.CANCELLED)).isEqualTo(1);
        assertThat(r.totalNanos(Outcome.CANCELLED)).isEqualTo(50 * MS);
        assertThat(r.count(Outcome.EXPIRED)).isZero();
        assertThat(r.source.completed()).isEqualTo(1);
        assertThat(r.source.completedAtOnce()).as("the first-try completion, counted").isEqualTo(1);
        assertThat(r.source.cancelled()).isEqualTo(1);
    }

    @Test
    void recorder_clockGiven_measuresDurationsOnThatClock() {
        ManualClock clock = new ManualClock(-5_000_000_000L);
        try (DelayedOperationPurgatory<MockOperation> p = builder("clocked").clock(clock).build()) {
            MockOperation op = new MockOperation(1_000);
            p.tryCompleteElseWatch(op, List.of("k"));
            clock.advanceMillis(7);
            op.forceComplete();

            assertThat(metrics.of("clocked").totalNanos(Outcome.COMPLETED)).isEqualTo(7 * MS);
        }
    }

    @Test
    void source_callbacksThrow_countsByCallback() {
        DelayedOperationPurgatory<MockOperation> p = builder("failing").errorHandler((n, o, c, e) -> { }).build();
        try (p) {
            MockOperation op = new MockOperation(100) {
                @Override
                public void onComplete() {
                    throw new IllegalStateException("onComplete failed");
                }

                @Override
                public void onExpiration() {
                    throw new IllegalStateException("onExpiration failed");
                }
            };
            p.tryCompleteElseWatch(op, List.of("k"));
            timer.advanceClock(100);

            MetricsSource source = metrics.of("failing").source;
            assertThat(source.callbackErrors(Callback.ON_COMPLETE)).isEqualTo(1);
            assertThat(source.callbackErrors(Callback.ON_EXPIRATION)).isEqualTo(1);
            assertThat(source.callbackErrors(Callback.TRY_COMPLETE)).isZero();
            assertThat(source.callbackErrors(Callback.ON_CANCEL)).isZero();
            assertThat(source.retainsEvents()).isFalse();
            assertThat(source.eventsRetained()).isZero();
        }
    }

    @Test
    void source_purgatoryFull_countsRejections() {
        try (DelayedOperationPurgatory<MockOperation> p = builder("full").maxPending(1).build()) {
            p.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

            assertThatThrownBy(() -> p.tryCompleteElseWatch(new MockOperation(100), List.of("k")))
                    .isInstanceOf(PurgatoryFullException.class);

            assertThat(metrics.of("full").source.rejected()).isEqualTo(1);
        }
    }

    @Test
    void purgesCounter_keyEmptied_listIsKeptForReuseThenSweptAfterASecond() {
        try (DelayedOperationPurgatory<MockOperation> p = builder("purged").build()) {
            MutableKey key = new MutableKey(1);
            MockOperation first = new MockOperation(100_000);
            p.tryCompleteElseWatch(first, List.of(key));
            key.hash = 2; // even a key whose hashCode changed is swept

            first.forceComplete();

            assertThat(p.watched()).isZero();
            assertThat(p.watchedKeys()).as("no pending operation on it").isZero();
            assertThat(p.engine().counters().emptyLists()).as("its list is kept for the key's next operation")
                    .isEqualTo(1);
            p.engine().checkInvariants();
            timer.advanceClock(999);
            p.engine().purgeIfNeeded();
            assertThat(p.stats().purges()).as("kept for less than a second: no sweep yet").isZero();
            timer.advanceClock(1);

            p.engine().purgeIfNeeded();

            assertThat(p.engine().counters().emptyLists()).isZero();
            assertThat(p.stats().purges()).isEqualTo(1);
            assertThat(metrics.of("purged").source.purges()).isEqualTo(1);
            p.engine().checkInvariants();
            timer.advanceClock(5_000);
            p.engine().purgeIfNeeded();
            assertThat(p.stats().purges()).as("nothing kept: no purge").isEqualTo(1);
        }
    }

    @Test
    void bindMetrics_alreadyBound_throwsNamingThePurgatoryAndCreatesNothing() {
        RecordingMetrics second = new RecordingMetrics();

        assertThatThrownBy(() -> purgatory.bindMetrics(second))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'metered'").hasMessageContaining("already bound");
        assertThat(second.boundCount()).isZero();
        assertThat(purgatory.hasMetrics()).isTrue();
    }

    @Test
    void build_factoryThrows_buildThrowsAndLeavesNothingRunning() {
        IllegalStateException refused = new IllegalStateException("refused");

        assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("refused").timer(timer)
                .reaperEnabled(false).metrics(source -> {
                    throw refused;
                }).build()).isSameAs(refused);
        assertThatThrownBy(() -> DelayedOperationPurgatory.<MockOperation>builder("own-timer")
                .metrics(source -> null).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("returned no recorder");
        ReliabilitySupport.assertNoLibraryThreadLeft("own-timer");
    }

    @Test
    void close_closesTheRecorderOnceAfterTheLastSettle_andNothingIsRecordedAfter() {
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));
        timer.advanceClock(30);

        purgatory.close();
        purgatory.close();

        RecordingMetrics.Recorder r = metrics.of("metered");
        assertThat(r.isClosed()).isTrue();
        assertThat(r.count(Outcome.EXPIRED)).as("settled by close, before the recorder closed").isEqualTo(1);
        assertThat(r.totalNanos(Outcome.EXPIRED)).isEqualTo(30 * MS);
        assertThat(r.lateCount.sum()).as("expired early by close(), not late by the timer").isZero();
        assertThat(r.recordsAfterClose.sum()).isZero();
        assertThat(purgatory.hasMetrics()).isFalse();
    }

    @Test
    void bindMetrics_afterClose_throwsAndCreatesNothing() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("late")
                .timer(timer).reaperEnabled(false).build();
        p.close();

        assertThatThrownBy(() -> p.bindMetrics(metrics)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'late' is closed");
        assertThat(metrics.isBound("late")).isFalse();
        assertThatThrownBy(() -> p.bindMetrics(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("factory");
    }

    @Test
    void bindMetrics_afterOperationsWereWatched_sourceIncludesThemButTheyAreNotTimed() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("unbound")
                .timer(timer).reaperEnabled(false).build()) {
            p.tryCompleteElseWatch(new MockOperation(100), List.of("a", "b"));
            timer.advanceClock(1); // watched before the bind's clock reading (at the same reading, it would be timed)

            p.bindMetrics(metrics);

            MetricsSource source = metrics.of("unbound").source;
            assertThat(source.pending()).isEqualTo(1);
            assertThat(source.watched()).isEqualTo(2);
            timer.advanceClock(99);
            assertThat(source.pending()).isZero();
            assertThat(metrics.of("unbound").count(Outcome.EXPIRED)).as("watched before binding: not timed").isZero();
        }
    }

    @Test
    void recorder_throwsAnErrorOnEverySettle_operationsStillSettleExactlyOnceAndTheFailureIsLogged() {
        AtomicInteger calls = new AtomicInteger();
        MetricsRecorder throwing = new MetricsRecorder() {
            @Override
            public void recordSettled(Outcome outcome, long watchedNanos) {
                calls.incrementAndGet();
                throw new StackOverflowError("recorder");
            }

            @Override
            public void recordLateness(long latenessNanos) {
                throw new AssertionError("not reached: recordSettled threw first");
            }

            @Override
            public void close() {
                throw new OutOfMemoryError("recorder close");
            }
        };
        try (LogCapture logs = new LogCapture(DelayedOperationPurgatory.class)) {
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("broken")
                    .timer(timer).reaperEnabled(false).metrics(source -> throwing).build();
            MockOperation completed = new MockOperation(100);
            MockOperation expired = new MockOperation(100);
            p.tryCompleteElseWatch(completed, List.of("k"));
            p.tryCompleteElseWatch(expired, List.of("k"));

            assertThat(completed.forceComplete()).isTrue();
            timer.advanceClock(100);
            p.close();

            assertThat(completed.callbacks()).containsExactly("onComplete");
            assertThat(expired.callbacks()).containsExactly("onComplete", "onExpiration");
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThat(calls).hasValue(2);
            assertThat(logs.events()).hasSize(3)
                    .allSatisfy(e -> assertThat(e.getFormattedMessage()).contains("'broken'", "MetricsRecorder threw"));
        }
    }

    @Test
    void timeInPurgatory_eightyMinuteWait_isRecordedAsEightyMinutes() {
        ManualClock clock = new ManualClock();
        RecordingMetrics metrics = new RecordingMetrics();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("long-wait")
                .timerEnabled(false).reaperEnabled(false).clock(clock).metrics(metrics).build();
        HookOp shortDelay = new HookOp(1_000); // never expires here: no timer
        HookOp longDelay = new HookOp(TimeUnit.DAYS.toMillis(2));
        p.tryCompleteElseWatch(shortDelay, List.of("k"));
        p.tryCompleteElseWatch(longDelay, List.of("k"));

        clock.advance(80, TimeUnit.MINUTES);
        shortDelay.forceComplete();
        clock.advance(TimeUnit.DAYS.toMinutes(60), TimeUnit.MINUTES);
        longDelay.forceComplete();

        RecordingMetrics.Recorder recorded = metrics.of("long-wait");
        assertThat(recorded.count(Outcome.COMPLETED)).isEqualTo(2);
        assertThat(TimeUnit.NANOSECONDS.toMinutes(recorded.maxNanos(Outcome.COMPLETED)))
                .isEqualTo(80 + TimeUnit.DAYS.toMinutes(60));
        assertThat(TimeUnit.NANOSECONDS.toMinutes(recorded.totalNanos(Outcome.COMPLETED)))
                .isEqualTo(80 + 80 + TimeUnit.DAYS.toMinutes(60));
        p.close();
    }

    @Test
    void bindMetrics_theFactoryClosesThePurgatory_theRecorderItCreatedIsClosed() {
        DelayedOperationPurgatory<DelayedOperation> p = unmetered("close-in-create");
        CountingRecorder recorder = new CountingRecorder();

        try {
            p.bindMetrics(source -> {
                p.close(); // a shutdown while a framework binds
                return recorder;
            });
        } catch (IllegalStateException refused) {
            // refusing a bind whose purgatory closed meanwhile is fine, if the recorder is closed
        }

        assertThat(p.isClosed()).isTrue();
        assertThat(p.hasMetrics()).as("metrics bound on a closed purgatory").isFalse();
        assertThat(recorder.closes).as("closes of the recorder the factory created").hasValue(1);
    }

    @Test
    void bindMetrics_theFactoryBindsAgain_closeClosesEveryRecorderCreated() {
        DelayedOperationPurgatory<DelayedOperation> p = unmetered("bind-in-create");
        CountingRecorder inner = new CountingRecorder();
        CountingRecorder outer = new CountingRecorder();
        AtomicInteger innerCreated = new AtomicInteger();

        try {
            p.bindMetrics(source -> {
                try {
                    p.bindMetrics(again -> {
                        innerCreated.incrementAndGet();
                        return inner;
                    });
                } catch (IllegalStateException refused) {
                    // refusing the second bind is fine
                }
                return outer;
            });
        } catch (IllegalStateException refused) {
            // refusing the first once a second came is fine too, if what was created is closed
        }
        p.close();

        assertThat(outer.closes).as("closes of the outer recorder").hasValue(1);
        assertThat(inner.closes).as("closes of the inner recorder, if created").hasValue(innerCreated.get());
    }

    private PurgatoryBuilder<MockOperation> builder(String name) {
        return DelayedOperationPurgatory.<MockOperation>builder(name).timer(timer).reaperEnabled(false)
                .metrics(metrics);
    }

    private void assertGauges(int pending, int watched, int keys) {
        MetricsSource source = metrics.of("metered").source;
        assertThat(source.pending()).isEqualTo(pending);
        assertThat(source.watched()).isEqualTo(watched);
        assertThat(source.keys()).isEqualTo(keys);
    }

    private static DelayedOperationPurgatory<DelayedOperation> unmetered(String name) {
        return DelayedOperationPurgatory.builder(name).timerEnabled(false).reaperEnabled(false).build();
    }

    /** A key whose hashCode the test changes while it is watched (a misuse the purge repairs). */
    static final class MutableKey {
        volatile int hash;

        MutableKey(int hash) {
            this.hash = hash;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public String toString() {
            return "MutableKey";
        }
    }
}
