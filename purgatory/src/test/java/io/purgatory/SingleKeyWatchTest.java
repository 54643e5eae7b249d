package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An operation watched on one key is its own node on that key's list, and its one reference field
 * names that list while it is linked (Watchers K3): observed (its WaitOwner keeps the list)
 * or not. Settles and undos that land while it is being watched on its only key leave it on no
 * list, its wait ended once, and a failed submission leaves it free for another purgatory.
 */
class SingleKeyWatchTest {

    private final ManualTimer timer = new ManualTimer();
    private final WaitObserverTest.Recording observer = new WaitObserverTest.Recording();

    private DelayedOperationPurgatory<HookOp> purgatory(String name, boolean observed) {
        PurgatoryBuilder<HookOp> builder = DelayedOperationPurgatory.<HookOp>builder(name).timer(timer);
        return (observed ? builder.observer(observer) : builder).build();
    }

    /** A key whose hashCode runs {@code action} the second time it is called: while it is being watched. */
    static final class ActingKey {
        private final Runnable action;
        private final AtomicInteger calls = new AtomicInteger();

        ActingKey(Runnable action) {
            this.action = action;
        }

        @Override
        public int hashCode() {
            if (calls.incrementAndGet() == 2) {
                action.run();
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }
    }

    @ParameterizedTest(name = "observed {0}")
    @ValueSource(booleans = {false, true})
    void tryCompleteElseWatch_onlyKeysHashCodeCancelsItWhileWatched_settledOnceAndOnNoList(boolean observed) {
        DelayedOperationPurgatory<HookOp> p = purgatory("alone", observed);
        HookOp op = new HookOp(100);
        ActingKey key = new ActingKey(op::cancel);

        assertThat(p.tryCompleteElseWatch(op, List.of(key))).isFalse();

        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(EngineInternals.holdsNoWatchLink(op)).isTrue();
        assertThat(timer.size()).isZero();
        p.engine().checkInvariants();
        p.close();
        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
        assertThat(observer.ends).isEqualTo(observed ? List.of("CANCELLED") : List.of());
    }

    @ParameterizedTest(name = "observed {0}")
    @ValueSource(booleans = {false, true})
    void tryCompleteElseWatch_onlyKeyFailsWhileWatchedThenSubmittedElsewhere_eachWaitEndsOnceAndTheSecondCompletes(
            boolean observed) {
        DelayedOperationPurgatory<HookOp> first = purgatory("first", observed);
        DelayedOperationPurgatory<HookOp> second = purgatory("second", observed);
        HookOp op = new HookOp(100);
        ActingKey key = new ActingKey(() -> {
            throw new IllegalStateException("key failed");
        });

        assertThatThrownBy(() -> first.tryCompleteElseWatch(op, List.of(key)))
                .isInstanceOf(IllegalArgumentException.class).hasRootCauseMessage("key failed");
        assertThat(EngineInternals.ownerEngine(op)).as("owned by no purgatory after the undo").isNull();
        assertThat(second.tryCompleteElseWatch(op, List.of("k"))).isFalse();
        assertThat(EngineInternals.listKey(op)).isEqualTo("k");
        op.completable = true;
        assertThat(second.checkAndComplete("k")).isOne();

        assertThat(op.callbackCounts()).isEqualTo("1,0,0");
        assertThat(first.numDelayed() + second.numDelayed()).isZero();
        assertThat(first.watched() + second.watched()).isZero();
        first.engine().checkInvariants();
        second.engine().checkInvariants();
        first.close();
        second.close();
        assertThat(op.callbackCounts()).isEqualTo("1,0,0");
        if (observed) {
            assertThat(observer.ends).hasSize(2);
            assertThat(observer.ends.get(0)).startsWith("FAILED:");
            assertThat(observer.ends.get(1)).isEqualTo("COMPLETED");
            assertThat(observer.starts).extracting(WaitStart::purgatory).containsExactly("first", "second");
        }
        assertThat(timer.size()).isZero();
    }
}
