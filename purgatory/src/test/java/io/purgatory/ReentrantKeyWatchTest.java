package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Promises 2 and 3 of docs/reliability.md, against a key whose {@code equals} calls back into the
 * purgatory while the key is being watched. WatcherList.watch puts a new key list into the map
 * under the list's monitor; HashMap.put calls equals on the colliding keys it passes, and the
 * monitor is reentrant, so a submission on an equal key from inside that equals puts a list of its
 * own first, which the outer put then finds and overwrites: the nested operation is linked on a
 * list no longer in the map, found by no check and never answered by close().
 */
class ReentrantKeyWatchTest {

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

    @Test
    void watch_aNewKeysEqualsSubmitsOnAnEqualKey_bothOperationsAreOnTheKeyAndAnsweredByClose() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                "reentrant-equals").timerEnabled(false).reaperEnabled(false).shards(1).build();
        MockOperation onOther = new MockOperation(60_000);
        p.tryCompleteElseWatch(onOther, List.of(new CollidingKey("other"))); // collides with k, not equal
        CollidingKey k = new CollidingKey("k");
        MockOperation outer = new MockOperation(60_000);
        MockOperation nested = new MockOperation(60_000);
        // call 1: the map's get of k passes "other"; call 2: its put of k's new list passes "other" again
        k.onEqualsCall(2, () -> p.tryCompleteElseWatch(nested, List.of(new CollidingKey("k"))));

        p.tryCompleteElseWatch(outer, List.of(k));

        outer.completable = true;
        nested.completable = true;
        assertThat(p.checkAndComplete(new CollidingKey("k"))).as("operations on k a check of k completes")
                .isEqualTo(2);
        p.close();
        assertThat(nested.onCompleteCalls.get() + nested.onExpirationCalls.get())
                .as("the nested operation is answered, by the check or by close()").isPositive();
        assertThat(p.numDelayed()).isZero();
    }
}
