package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input fails fast, names the argument, and leaves nothing behind. */
class InputValidationTest {

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<MockOperation> purgatory = manual("first");

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void tryCompleteElseWatch_nullOperation_throwsNamingOperation() {
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(null, List.of("k")))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("operation");
    }

    @Test
    void tryCompleteElseWatch_nullKeys_throwsNamingWatchKeys() {
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("watchKeys");
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_emptyKeys_throwsNamingWatchKeys() {
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watchKeys");
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_nullKeyAmongKeys_throwsNamingWatchKeysAndIndex() {
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, Arrays.asList("a", null)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("watchKeys")
                .hasMessageContaining("index 1");
        assertThat(op.tryCompleteCalls).hasValue(0);
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_keyWhoseHashCodeThrows_throwsIaeAndWatchesNothing() {
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of("good", new ThrowingHashKey())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watch key at index 1")
                .hasMessageContaining("hashCode")
                .hasRootCauseInstanceOf(IllegalStateException.class);
        assertThat(op.tryCompleteCalls).as("refused at validation, before the operation is touched").hasValue(0);
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_keyWhoseHashCodeThrowsWhatCannotBeShown_throwsIaeCarryingIt() {
        MockOperation op = new MockOperation(100);
        RuntimeException unshowable = new IllegalStateException() {
            @Override
            public String getMessage() {
                throw new UnsupportedOperationException("its message is user code too");
            }
        };
        Object key = new Object() {
            @Override
            public int hashCode() {
                throw unshowable;
            }

            @Override
            public boolean equals(Object o) {
                return this == o;
            }
        };

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of(key)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watch key at index 0")
                .hasCause(unshowable);
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_keysWhoseEqualsThrows_throwsIaeAndWatchesNothing() {
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op,
                List.of(new ThrowingEqualsKey(1), new ThrowingEqualsKey(2))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watch key")
                .hasMessageContaining("equals");
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_manyKeysWhoseEqualsThrows_throwsIaeAndWatchesNothing() {
        MockOperation op = new MockOperation(100);
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            keys.add(new ThrowingEqualsKey(i)); // same hashCode: the set must call equals
        }

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, keys))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watch key");
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_duplicateKeys_watchesEachKeyOnce() {
        MockOperation op = new MockOperation(100);

        purgatory.tryCompleteElseWatch(op, List.of("k", new String("k"), "k"));

        assertThat(purgatory.watched()).isEqualTo(1);
        assertThat(purgatory.watchedKeys()).isEqualTo(1);
        op.completable = true;
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);
        assertThat(op.onCompleteCalls).hasValue(1);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void tryCompleteElseWatch_manyKeysWithDuplicates_watchesEachDistinctKeyOnce() {
        MockOperation op = new MockOperation(100);
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            keys.add("key" + (i % 10));
        }

        purgatory.tryCompleteElseWatch(op, keys);

        assertThat(purgatory.watched()).isEqualTo(10);
        assertThat(purgatory.watchedKeys()).isEqualTo(10);
        timer.advanceClock(100);
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void tryCompleteElseWatch_operationAlreadyPendingHere_throwsNamingPurgatoryAndKeepsFirstSubmission() {
        MockOperation op = new MockOperation(100);
        purgatory.tryCompleteElseWatch(op, List.of("a"));

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of("b")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'first'")
                .hasMessageContaining("already submitted");

        assertThat(op.tryCompleteCalls).as("not tried again").hasValue(2);
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
        assertThat(purgatory.checkAndComplete("b")).isZero();
        op.completable = true;
        assertThat(purgatory.checkAndComplete("a")).isEqualTo(1);
        assertThat(op.callbacks()).containsExactly("onComplete");
    }

    @Test
    void tryCompleteElseWatch_operationPendingInAnotherPurgatory_throwsNamingThatPurgatory() {
        MockOperation op = new MockOperation(100);
        purgatory.tryCompleteElseWatch(op, List.of("a"));
        try (DelayedOperationPurgatory<MockOperation> second = manual("second")) {

            assertThatThrownBy(() -> second.tryCompleteElseWatch(op, List.of("a")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'first'");

            assertThat(second.numDelayed()).isZero();
            assertThat(second.watched()).isZero();
            assertThat(second.checkAndComplete("a")).isZero();
            second.engine().checkInvariants();
        }
        assertThat(op.isCompleted()).as("closing the second purgatory left it alone").isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        timer.advanceClock(100);
        assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
    }

    @Test
    void tryCompleteElseWatch_operationAlreadySettled_throwsNamingOperation() {
        MockOperation completed = new MockOperation(100);
        completed.forceComplete();
        MockOperation cancelled = new MockOperation(100);
        cancelled.cancel();
        MockOperation completedHere = new MockOperation(100);
        completedHere.completable = true;
        purgatory.tryCompleteElseWatch(completedHere, List.of("k"));

        for (MockOperation op : List.of(completed, cancelled, completedHere)) {
            assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of("k")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("operation")
                    .hasMessageContaining("settled");
        }
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
        assertThat(completedHere.onCompleteCalls).hasValue(1);
    }

    @Test
    void checkAndCompleteAndCancelForKey_nullKey_throwNamingKey() {
        assertThatThrownBy(() -> purgatory.checkAndComplete(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("key");
        assertThatThrownBy(() -> purgatory.cancelForKey(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("key");
    }

    @Test
    void tryCompleteElseWatch_keyWhoseHashCodeFailsAfterValidation_failsAndLeavesNothingBehind() {
        MockOperation op = new MockOperation(100);
        FlakyHashKey flaky = new FlakyHashKey();

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of("good", flaky)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watch key at index 1")
                .hasRootCauseMessage("hashCode failed");

        purgatory.engine().checkInvariants();
        timer.advanceClock(100);
        assertThat(op.callbacks()).as("an operation whose submission failed never expires").isEmpty();
        assertNothingWatchedAndStillSubmittable(op);
    }

    @Test
    void tryCompleteElseWatch_onlyKeyFailsAfterValidation_closeFindsNothingToSettle() {
        MockOperation op = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of(new FlakyHashKey())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(purgatory.numDelayed()).isZero();

        purgatory.close();

        assertThat(purgatory.numDelayed()).as("nothing pending after close").isZero();
        assertThat(op.callbacks()).isEmpty();
        assertThat(op.isCompleted()).isFalse();
    }

    @ParameterizedTest(name = "{0}, timer {1}")
    @CsvSource({"EXPIRE,true", "COMPLETE,true", "CANCEL,true", "EXPIRE,false", "COMPLETE,false", "CANCEL,false"})
    void tryCompleteElseWatch_onlyKeyThrowsWhileWatched_failsAndCloseLeavesNothingPending(ClosePolicy policy,
                                                                                            boolean withTimer) {
        ManualTimer timer = new ManualTimer();
        PurgatoryBuilder<HookOp> b = DelayedOperationPurgatory.<HookOp>builder("no-key").closePolicy(policy)
                .reaperEnabled(false);
        DelayedOperationPurgatory<HookOp> p = withTimer ? b.timer(timer).build() : b.timerEnabled(false).build();
        HookOp op = new HookOp(100);

        assertThatThrownBy(() -> p.tryCompleteElseWatch(op, List.of(new FlakyHashKey())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watch key at index 0");
        p.close();

        assertThat(p.numDelayed()).isZero();
        assertThat(op.callbackCounts()).as("never submitted, never answered").isEqualTo("0,0,0");
        assertThat(timer.size()).isZero();
        timer.close();
    }

    private void assertNothingWatchedAndStillSubmittable(MockOperation op) {
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(op.isCompleted()).isFalse();
        assertThat(purgatory.tryCompleteElseWatch(op, List.of("valid"))).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
    }

    private DelayedOperationPurgatory<MockOperation> manual(String name) {
        return DelayedOperationPurgatory.<MockOperation>builder(name).timer(timer).reaperEnabled(false).build();
    }

    /** A key whose hashCode always throws. */
    static final class ThrowingHashKey {
        @Override
        public int hashCode() {
            throw new IllegalStateException("hashCode failed");
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }
    }

    /** Keys that all hash alike and whose equals throws. */
    static final class ThrowingEqualsKey {
        private final int id;

        ThrowingEqualsKey(int id) {
            this.id = id;
        }

        @Override
        public int hashCode() {
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            throw new IllegalStateException("equals failed for " + id);
        }
    }

    /** A key whose hashCode works once (validation) and throws afterwards. */
    static final class FlakyHashKey {
        private final AtomicInteger calls = new AtomicInteger();

        @Override
        public int hashCode() {
            if (calls.incrementAndGet() > 1) {
                throw new IllegalStateException("hashCode failed");
            }
            return 42;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public String toString() {
            return "FlakyHashKey";
        }
    }
}
