package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A key whose hashCode or equals calls back into the purgatory (WatcherList K9; promises 2 and 3
 * of docs/reliability.md): the call back is refused before it changes anything. A submission made
 * from the equals the map calls while it puts a new key's list, or from the hashCode asked as an
 * emptied list leaves the map, is refused; a key that catches the refusal lets the outer call go
 * on, one that lets it through fails the outer submission, which leaves nothing behind, and the
 * refused operation can be submitted again from a plain call.
 */
class KeyReentryTest {

    /** A key with a fixed hashCode, so that keys collide; its equals runs an action once when armed. */
    static final class CollidingKey {
        private final String id;
        private int equalsCalls;
        private int armedAtCall;
        private Runnable action;

        CollidingKey(String id) {
            this.id = id;
        }

        /** Runs {@code action} at the {@code call}-th call of equals from now. */
        void onEqualsCall(int call, Runnable action) {
            this.equalsCalls = 0;
            this.armedAtCall = call;
            this.action = action;
        }

        @Override
        public int hashCode() {
            return 42;
        }

        @Override
        public boolean equals(Object o) {
            if (action != null && ++equalsCalls == armedAtCall) {
                Runnable once = action;
                action = null;
                once.run();
            }
            return o instanceof CollidingKey other && other.id.equals(id);
        }

        @Override
        public String toString() {
            return id;
        }
    }

    /** A key that runs an action, once, the next time its hashCode is asked. */
    static final class CallingBackKey {
        private final String id;
        private volatile Runnable onNextHash;

        CallingBackKey(String id) {
            this.id = id;
        }

        void onNextHash(Runnable action) {
            this.onNextHash = action;
        }

        @Override
        public int hashCode() {
            Runnable action = onNextHash;
            if (action != null) {
                onNextHash = null;
                action.run();
            }
            return id.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CallingBackKey other && other.id.equals(id);
        }

        @Override
        public String toString() {
            return id;
        }
    }

    @Test
    void watch_aNewKeysEqualsSubmitsOnAnEqualKey_theNestedSubmissionIsRefusedAndTheOuterOneGoesOn() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                "reentrant-equals").timerEnabled(false).reaperEnabled(false).shards(1).build();
        MockOperation onOther = new MockOperation(60_000);
        p.tryCompleteElseWatch(onOther, List.of(new CollidingKey("other"))); // collides with k, not equal
        CollidingKey k = new CollidingKey("k");
        MockOperation outer = new MockOperation(60_000);
        MockOperation nested = new MockOperation(60_000);
        // call 1: the map's get of k passes "other"; call 2: its put of k's new list passes "other" again
        AtomicReference<Throwable> refused = new AtomicReference<>();
        k.onEqualsCall(2, () -> {
            try {
                p.tryCompleteElseWatch(nested, List.of(new CollidingKey("k")));
            } catch (RuntimeException e) {
                refused.set(e);
            }
        });

        p.tryCompleteElseWatch(outer, List.of(k));

        assertThat(refused.get()).isInstanceOf(KeyReentryException.class);
        assertThat(nested.isCompleted()).isFalse();
        assertThat(p.numDelayed()).as("the outer operation and the one on 'other'").isEqualTo(2);
        p.engine().checkInvariants();
        outer.completable = true;
        assertThat(p.checkAndComplete(new CollidingKey("k"))).as("the outer operation is on k").isEqualTo(1);
        p.close();
        assertThat(outer.onCompleteCalls).hasValue(1);
        assertThat(p.numDelayed()).isZero();
    }

    @Test
    void watch_aNewKeysEqualsLetsTheRefusalThrough_theOuterSubmissionFailsAndLeavesNothingBehind() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                "reentrant-equals-through").timerEnabled(false).reaperEnabled(false).shards(1).build();
        p.tryCompleteElseWatch(new MockOperation(60_000), List.of(new CollidingKey("other")));
        CollidingKey k = new CollidingKey("k");
        MockOperation outer = new MockOperation(60_000);
        k.onEqualsCall(2, () -> p.tryCompleteElseWatch(new MockOperation(60_000), List.of(new CollidingKey("k"))));

        assertThatThrownBy(() -> p.tryCompleteElseWatch(outer, List.of(k)))
                .isInstanceOf(KeyReentryException.class);

        assertThat(outer.isCompleted()).isFalse();
        assertThat(p.numDelayed()).as("only the operation on 'other'").isEqualTo(1);
        p.engine().checkInvariants();
        p.close();
        assertThat(p.numDelayed()).isZero();
    }

    @Test
    void settle_theEmptiedKeysHashCodeSubmitsOnTheSameKey_theSubmissionIsRefusedAndNothingIsLost() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("reentrant-key")
                .timerEnabled(false).reaperEnabled(false).shards(1).build();
        // fill the lists kept for reuse (K5), so that the next emptied list is removed from the map
        for (int i = 0; i < WatcherList.MAX_EMPTY_KEPT; i++) {
            MockOperation filler = new MockOperation(60_000);
            p.tryCompleteElseWatch(filler, List.of("filler-" + i));
            filler.forceComplete();
        }
        CallingBackKey key = new CallingBackKey("k");
        MockOperation first = new MockOperation(60_000);
        p.tryCompleteElseWatch(first, List.of(key));
        MockOperation second = new MockOperation(60_000);
        AtomicReference<Throwable> refused = new AtomicReference<>();
        key.onNextHash(() -> {
            try {
                p.tryCompleteElseWatch(second, List.of(new CallingBackKey("k")));
            } catch (RuntimeException e) {
                refused.set(e);
            }
        });

        assertThat(first.forceComplete()).isTrue(); // empties k's list; its removal asks k's hashCode

        assertThat(refused.get()).as("the submission from inside the key's hashCode").isInstanceOf(
                KeyReentryException.class);
        assertThat(first.onCompleteCalls).hasValue(1);
        assertThat(second.isCompleted()).isFalse();
        assertThat(p.numDelayed()).as("nothing counted for the refused submission").isZero();
        assertThatCode(() -> p.engine().checkInvariants()).as("(K5) and the gauges").doesNotThrowAnyException();
        p.tryCompleteElseWatch(second, List.of(new CallingBackKey("k")));
        second.completable = true;
        assertThat(p.checkAndComplete(new CallingBackKey("k"))).as("submitted again, a check of k completes it")
                .isEqualTo(1);
        p.close();
        assertThat(second.onCompleteCalls).as("answered once").hasValue(1);
        assertThat(p.numDelayed()).isZero();
    }
}
