package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rows of the bad-input catalogue in docs/reliability.md that the behaviour suites do not
 * already cover: keys whose hashCode or equals changes or throws after they were watched, huge
 * key sets, every call after close, the same operation used from two threads at once, and the
 * edges of the builder's ranges. Each test states what the library does with the input.
 */
class BadInputCatalogueTest {

    private final ManualTimer timer = new ManualTimer();

    @AfterEach
    void tearDown() {
        timer.close();
    }

    // ---- keys whose hashCode or equals changes or throws after watching (K5) ----

    @Test
    void watchedKey_hashCodeChangesThenTheOperationExpires_itExpiresAndAPurgeSweepsTheKeysEntry() {
        DelayedOperationPurgatory<HookOp> p = manual();

        WeakReference<Object> key = expireOnAKeyWhoseHashChanged(p);

        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertSweptByTheNextPurge(p, key);
        p.close();
    }

    private WeakReference<Object> expireOnAKeyWhoseHashChanged(DelayedOperationPurgatory<HookOp> p) {
        MutableKey key = new MutableKey(1);
        HookOp op = new HookOp(50);
        p.tryCompleteElseWatch(op, List.of(key, "stable"));
        key.hash = 2;
        op.completable = true;
        assertThat(p.checkAndComplete(key)).as("looked up under its new hash: not found").isZero();
        assertThat(p.checkAndComplete(new MutableKey(1))).as("an equal key with the old hash: not equal any more")
                .isZero();
        timer.advanceClock(50);
        assertThat(op.callbackCounts()).as("it still expires").isEqualTo("1,1,0");
        return new WeakReference<>(key);
    }

    @Test
    void watchedKey_hashCodeChanges_forceCompleteAndCancelStillSettleAndLeaveEveryList() {
        DelayedOperationPurgatory<HookOp> p = manual();

        WeakReference<Object> forcedKey = settleOnAKeyWhoseHashChanged(p, HookOp::forceComplete, "1,0,0");
        WeakReference<Object> cancelledKey = settleOnAKeyWhoseHashChanged(p, HookOp::cancel, "0,0,1");

        assertThat(p.watched()).isZero();
        assertThat(p.numDelayed()).isZero();
        assertSweptByTheNextPurge(p, forcedKey);
        assertThat(ReliabilitySupport.isCollected(cancelledKey)).isTrue();
        assertThat(timer.size()).isZero();
        p.close();
    }

    @SuppressWarnings("NonAtomicVolatileUpdate") // only this thread writes the key's hash
    private WeakReference<Object> settleOnAKeyWhoseHashChanged(DelayedOperationPurgatory<HookOp> p,
                                                               java.util.function.Predicate<HookOp> settle,
                                                               String callbacks) {
        MutableKey key = new MutableKey(10 + callbacks.hashCode());
        HookOp op = new HookOp(50);
        p.tryCompleteElseWatch(op, List.of("shared", key));
        key.hash++;
        assertThat(settle.test(op)).isTrue();
        assertThat(op.callbackCounts()).isEqualTo(callbacks);
        return new WeakReference<>(key);
    }

    @Test
    void watchedKey_hashCodeChangesAndChangesBack_isFoundAgain() {
        DelayedOperationPurgatory<HookOp> p = manual();
        MutableKey key = new MutableKey(3);
        HookOp op = new HookOp(50);
        p.tryCompleteElseWatch(op, List.of(key));
        op.completable = true;

        key.hash = 4;
        assertThat(p.checkAndComplete(key)).isZero();
        key.hash = 3;

        assertThat(p.checkAndComplete(key)).isEqualTo(1);
        assertThat(p.watchedKeys()).isZero();
        p.close();
    }

    @Test
    void watchedKey_hashCodeStartsThrowingAfterWatching_lookupsThrowSettlingWorksAndAPurgeSweepsTheKey() {
        DelayedOperationPurgatory<HookOp> p = manual();

        WeakReference<Object> key = settleOnAKeyWhoseHashCodeThrows(p);

        assertThat(p.watched()).isZero();
        assertSweptByTheNextPurge(p, key);
        p.engine().checkInvariants();
        p.close();
    }

    private WeakReference<Object> settleOnAKeyWhoseHashCodeThrows(DelayedOperationPurgatory<HookOp> p) {
        FailingLaterKey key = new FailingLaterKey();
        HookOp op = new HookOp(50);
        p.tryCompleteElseWatch(op, List.of(key));
        key.failing = true;
        assertThatThrownBy(() -> p.checkAndComplete(key)).as("the key's own exception reaches the caller")
                .isInstanceOf(IllegalStateException.class).hasMessage("hashCode failed");
        assertThatThrownBy(() -> p.cancelForKey(key)).isInstanceOf(IllegalStateException.class);
        assertThat(op.forceComplete()).as("settling does not need the key's hashCode").isTrue();
        return new WeakReference<>(key);
    }

    /**
     * The key's emptied entry stays in its shard's map (K5) until a purge, which removes it by
     * iterator; the key is then collectable. The purge runs as the reaper would run it, a clock
     * second later.
     */
    private void assertSweptByTheNextPurge(DelayedOperationPurgatory<HookOp> p, WeakReference<Object> key) {
        System.gc();
        assertThat(key.get()).as("held by its shard's map until a purge").isNotNull();
        timer.advanceClock(1_000);

        p.engine().purgeIfNeeded();

        assertThat(ReliabilitySupport.isCollected(key)).as("swept: the key is collectable").isTrue();
        assertThat(p.stats().purges()).isPositive();
        assertThat(p.watchedKeys()).isZero();
    }

    @Test
    void watchedKey_equalsStopsMatchingAfterWatching_theSameInstanceStillWorks() {
        DelayedOperationPurgatory<HookOp> p = manual();
        FickleEqualsKey key = new FickleEqualsKey();
        HookOp op = new HookOp(50);
        p.tryCompleteElseWatch(op, List.of(key));
        key.equalToAnything = false; // equals is now false even for itself; HashMap checks identity first

        op.completable = true;
        assertThat(p.checkAndComplete(key)).isEqualTo(1);
        assertThat(p.watchedKeys()).isZero();
        p.close();
    }

    // ---- huge key sets ----

    @Test
    void tryCompleteElseWatch_oneOperationOnAHundredThousandKeys_isWatchedOnEachAndLeavesThemAllOnSettle() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("huge-keys").timer(timer)
                .reaperEnabled(false).build();
        List<Object> keys = new ArrayList<>(100_000);
        for (int i = 0; i < 100_000; i++) {
            keys.add("key-" + i);
        }
        HookOp completed = new HookOp(1_000);
        HookOp expired = new HookOp(1_000);

        assertThat(p.tryCompleteElseWatch(completed, keys)).isFalse();
        assertThat(p.tryCompleteElseWatch(expired, keys)).isFalse();

        assertThat(p.watched()).isEqualTo(200_000);
        assertThat(p.watchedKeys()).isEqualTo(100_000);
        completed.completable = true;
        assertThat(p.checkAndComplete("key-77777")).isEqualTo(1);
        assertThat(p.watched()).isEqualTo(100_000);
        timer.advanceClock(1_000);
        assertThat(expired.callbackCounts()).isEqualTo("1,1,0");
        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        p.engine().checkInvariants();
        p.close();
    }

    @Test
    void tryCompleteElseWatch_aHundredThousandCopiesOfOneKey_watchesItOnce() {
        DelayedOperationPurgatory<HookOp> p = manual();
        HookOp op = new HookOp(100);

        p.tryCompleteElseWatch(op, Collections.nCopies(100_000, "same"));

        assertThat(p.watched()).isEqualTo(1);
        assertThat(p.watchedKeys()).isEqualTo(1);
        assertThat(p.cancelForKey("same")).containsExactly(op);
        p.close();
    }

    @Test
    void checkAndComplete_fiftyThousandOperationsOnOneKey_completesEveryOneInOneCall() {
        DelayedOperationPurgatory<HookOp> p = manual();
        List<HookOp> ops = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            HookOp op = new HookOp(100);
            ops.add(op);
            p.tryCompleteElseWatch(op, List.of("hot"));
        }
        ops.forEach(op -> op.completable = true);

        assertThat(p.checkAndComplete("hot")).isEqualTo(50_000);

        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        p.close();
    }

    // ---- every call after close ----

    @Test
    void purgatory_everyCallAfterClose_failsFastOrIsAHarmlessNoOp() {
        DelayedOperationPurgatory<HookOp> p = manual();
        HookOp settledByClose = new HookOp(100);
        p.tryCompleteElseWatch(settledByClose, List.of("k"));
        p.close();
        HookOp fresh = new HookOp(100);

        assertThatThrownBy(() -> p.tryCompleteElseWatch(fresh, List.of("k"))).isInstanceOf(IllegalStateException.class)
                .hasMessage("purgatory 'catalogue' is closed");
        assertThatThrownBy(() -> p.tryCompleteElseWatch(fresh, List.of())).as("arguments are checked first")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.checkAndComplete(null)).isInstanceOf(NullPointerException.class);
        assertThat(p.checkAndComplete("k")).isZero();
        assertThat(p.cancelForKey("k")).isEmpty();
        assertThat(settledByClose.forceComplete()).isFalse();
        assertThat(settledByClose.cancel()).isFalse();
        assertThat(settledByClose.callbackCounts()).isEqualTo("1,1,0");
        assertThat(p.isClosed()).isTrue();
        assertThat(p.name()).isEqualTo("catalogue");
        assertThat(p.stats()).isEqualTo(new PurgatoryStats("catalogue", 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0));
        assertThatThrownBy(() -> p.bindMetrics(new RecordingMetrics()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'catalogue' is closed");
        p.close();
        assertThat(fresh.isCompleted()).isFalse();
        assertThat(fresh.tries).hasValue(0);
    }

    @Test
    void delayedConditionAwait_afterClose_throwsAndCreatesNothing() {
        DelayedOperationPurgatory<DelayedCondition> p =
                DelayedOperationPurgatory.<DelayedCondition>builder("closed-waits")
                .timer(timer).reaperEnabled(false).build();
        p.close();

        assertThatThrownBy(() -> DelayedCondition.await(p, List.of("order"), 100, () -> true))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(p.stats().completedAtOnce()).isZero();
    }

    @Test
    void delayedFuturePurgatory_afterClose_refusesWithoutTouchingTheFuturesAndLeavesNoThread() throws Exception {
        DelayedFuturePurgatory futures = new DelayedFuturePurgatory("closed-futures");
        CompletableFuture<String> pending = new CompletableFuture<>();
        AtomicInteger callbacks = new AtomicInteger();
        DelayedFuture<String> before =
                futures.tryCompleteElseWatch(60_000, List.of(pending), callbacks::incrementAndGet);
        futures.close();
        assertThat(before.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(callbacks).hasValue(1);
        CompletableFuture<String> untouched = new CompletableFuture<>();

        assertThatThrownBy(() -> futures.tryCompleteElseWatch(100, List.of(untouched), callbacks::incrementAndGet))
                .isInstanceOf(IllegalStateException.class);

        assertThat(untouched.isDone()).isFalse();
        assertThat(callbacks).hasValue(1);
        futures.close();
        ReliabilitySupport.awaitCondition("DelayedExecutor thread ended",
                () -> ReliabilitySupport.libraryThreads("DelayedExecutor-closed-futures").isEmpty());
        ReliabilitySupport.assertNoLibraryThreadLeft("closed-futures");
    }

    @Test
    void delayedFuturePurgatory_badArguments_failFastOrCompleteAtOnce() {
        try (DelayedFuturePurgatory futures = new DelayedFuturePurgatory(DelayedOperationPurgatory
                .<DelayedFuture<?>>builder("future-args").timer(timer).reaperEnabled(false))) {
            AtomicInteger callbacks = new AtomicInteger();

            assertThatThrownBy(() -> futures.tryCompleteElseWatch(100, null, callbacks::incrementAndGet))
                    .isInstanceOf(NullPointerException.class).hasMessage("futures");
            assertThatThrownBy(() -> futures.tryCompleteElseWatch(100, List.of(new CompletableFuture<>()), null))
                    .isInstanceOf(NullPointerException.class).hasMessage("responseCallback");
            DelayedFuture<Object> none = futures.tryCompleteElseWatch(100, List.of(), callbacks::incrementAndGet);

            assertThat(none.outcome()).as("no futures: all done").isEqualTo(Outcome.COMPLETED);
            assertThat(callbacks).hasValue(1);
            assertThat(futures.executorStarted()).isFalse();
        }
    }

    // ---- the same operation from two threads at once ----

    @Test
    void tryCompleteElseWatch_sameOperationFromTwoThreadsAtOnce_oneWinsAndNoCapacityLeaks() throws Exception {
        int rounds = 3_000;
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("double-submit")
                .timer(timer).reaperEnabled(false).maxPending(2).build();
        AtomicReference<HookOp> current = new AtomicReference<>();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        CyclicBarrier barrier = new CyclicBarrier(2, () -> {
            HookOp previous = current.get();
            if (previous != null) {
                previous.forceComplete(); // frees its slot
            }
            current.set(new HookOp(1_000));
        });
        ReliabilitySupport.Work submitter = () -> {
            for (int i = 0; i < rounds; i++) {
                barrier.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
                try {
                    p.tryCompleteElseWatch(current.get(), List.of("k"));
                    accepted.incrementAndGet();
                } catch (IllegalStateException alreadySubmitted) {
                    assertThat(alreadySubmitted).hasMessageContaining("already submitted");
                    refused.incrementAndGet();
                }
            }
        };

        ReliabilitySupport.runConcurrently("double-submit", List.of(submitter, submitter));

        assertThat(accepted).hasValue(rounds);
        assertThat(refused).hasValue(rounds);
        current.get().forceComplete();
        assertThat(p.stats().rejected()).as("a misuse is never a capacity rejection").isZero();
        assertThat(p.stats().completed()).isEqualTo(rounds);
        assertThat(p.numDelayed()).isZero();
        p.tryCompleteElseWatch(new HookOp(1_000), List.of("k")); // no slot leaked: both are free
        p.tryCompleteElseWatch(new HookOp(1_000), List.of("k"));
        assertThat(p.numDelayed()).isEqualTo(2);
        p.engine().checkInvariants();
        p.close();
    }

    @Test
    void tryCompleteElseWatch_operationCancelledByAnotherThreadMeanwhile_isSettledOnceAndHoldsNoSlot()
            throws Exception {
        int rounds = 20_000;
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("cancel-while-submitting")
                .timer(timer).reaperEnabled(false).maxPending(1).build();
        AtomicReference<HookOp> current = new AtomicReference<>();
        AtomicInteger submittedReturnedTrue = new AtomicInteger();
        AtomicInteger refusedAsSettled = new AtomicInteger();
        CyclicBarrier barrier = new CyclicBarrier(2, () -> current.set(new HookOp(1_000)));
        ReliabilitySupport.Work submit = () -> {
            for (int i = 0; i < rounds; i++) {
                barrier.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
                try {
                    if (p.tryCompleteElseWatch(current.get(), List.of("k"))) {
                        submittedReturnedTrue.incrementAndGet();
                    }
                } catch (IllegalStateException settledFirst) {
                    assertThat(settledFirst).hasMessageContaining("already settled");
                    refusedAsSettled.incrementAndGet();
                }
                barrier.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
            }
        };
        ReliabilitySupport.Work cancel = () -> {
            for (int i = 0; i < rounds; i++) {
                barrier.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
                HookOp op = current.get();
                for (int spin = (i * 7) % 160; spin > 0; spin--) {
                    Thread.onSpinWait(); // shift the cancel across the submission's steps
                }
                assertThat(op.cancel()).isTrue();
                barrier.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS);
                assertThat(op.callbackCounts()).isEqualTo("0,0,1");
            }
        };

        ReliabilitySupport.runConcurrently("cancel-while-submitting", List.of(submit, cancel));

        assertThat(submittedReturnedTrue).as("a cancelled operation is never reported completed").hasValue(0);
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        timer.advanceClock(0);
        assertThat(timer.size()).isZero();
        HookOp probe = new HookOp(1_000);
        p.tryCompleteElseWatch(probe, List.of("k")); // maxPending 1: throws if a cancelled submission kept its slot
        assertThat(p.numDelayed()).isEqualTo(1);
        assertThat(p.stats().rejected()).isZero();
        p.engine().checkInvariants();
        p.close();
    }

    // ---- the edges of the builder's ranges ----

    @Test
    void builder_smallestAllowedValues_areAccepted() {
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("edges")
                .timerSettings(new TimerSettings(1, 2, Duration.ZERO)).shards(1).maxPending(0).build()) {
            HookOp op = new HookOp(5);
            p.tryCompleteElseWatch(op, List.of("k"));
            assertThat(p.numDelayed()).isEqualTo(1);
        }
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withWheelSize(1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("wheelSize must be between 2 and 65536: 1");
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("edges").maxPending(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith(": -1");
    }

    @Test
    void ownTimerGeometry_beyondTheTimersLimits_failsAtTheSetterNamingTheValue() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.<HookOp>builder("too-wide")
                .timerSettings(TimerSettings.DEFAULT.withWheelSize(65_537)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("wheelSize must be between 2 and 65536: 65537");
        assertThatThrownBy(() -> DelayedOperationPurgatory.<HookOp>builder("too-coarse")
                .timerSettings(TimerSettings.DEFAULT.withTickMs(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith(": " + Long.MAX_VALUE);
        ReliabilitySupport.assertNoLibraryThreadLeft("too-wide");
    }

    @Test
    void tryCompleteElseWatch_unusualButValidKeys_workLikeAnyOther() {
        DelayedOperationPurgatory<HookOp> p = manual();
        HookOp op = new HookOp(100);
        List<Object> keys = List.of("", op, 0, Long.MIN_VALUE, new ArrayList<>(List.of("list")));

        p.tryCompleteElseWatch(op, keys);

        assertThat(p.watchedKeys()).isEqualTo(5);
        op.completable = true;
        assertThat(p.checkAndComplete("")).isEqualTo(1);
        assertThat(p.watchedKeys()).isZero();
        p.close();
    }

    @Test
    void delay_maxDelayOnAPurgatoryTimer_neverExpiresButIsSettledByClose() {
        DelayedOperationPurgatory<HookOp> p = manual();
        HookOp op = new HookOp(Timer.MAX_DELAY_MS);
        p.tryCompleteElseWatch(op, List.of("k"));

        timer.advanceClock(Long.MAX_VALUE); // the end of the clock's range: 292 years

        assertThat(op.isCompleted()).isFalse();
        p.close();
        assertThat(op.callbackCounts()).isEqualTo("1,1,0");
    }

    // ---- helpers ----

    private DelayedOperationPurgatory<HookOp> manual() {
        return DelayedOperationPurgatory.<HookOp>builder("catalogue").timer(timer).reaperEnabled(false).build();
    }

    /** A key whose hashCode can be changed while it is watched (like a mutated collection). */
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
            return o instanceof MutableKey other && other.hash == hash;
        }
    }

    /** A key whose hashCode starts throwing once {@link #failing} is set. */
    static final class FailingLaterKey {
        volatile boolean failing;

        @Override
        public int hashCode() {
            if (failing) {
                throw new IllegalStateException("hashCode failed");
            }
            return 5;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }
    }

    /** A key whose equals can stop matching anything, itself included. */
    static final class FickleEqualsKey {
        volatile boolean equalToAnything = true;

        @Override
        public int hashCode() {
            return 9;
        }

        @Override
        public boolean equals(Object o) {
            return equalToAnything && o == this;
        }
    }
}
