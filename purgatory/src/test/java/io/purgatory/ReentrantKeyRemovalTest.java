package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Promises 2 and 3 of docs/reliability.md, against a key whose {@code hashCode} calls back into the
 * purgatory. A settle that empties a key's list removes it from the map (WatcherList.removeKey),
 * which calls the key's hashCode under the list's monitor; the monitor is reentrant, so a
 * submission on the same key from inside that hashCode reuses the emptied list and links its
 * operation there, and the removal then drops the list from the map with the operation on it.
 * That operation is counted pending, is found by no check, and close() never answers it.
 */
class ReentrantKeyRemovalTest {

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
    void settle_theEmptiedKeysHashCodeSubmitsOnTheSameKey_theNewOperationStaysReachableAndIsAnsweredByClose() {
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
        key.onNextHash(() -> p.tryCompleteElseWatch(second, List.of(new CallingBackKey("k"))));

        first.forceComplete(); // empties k's list; its removal asks k's hashCode, which submits `second` on k

        assertThat(second.isCompleted()).isFalse();
        second.completable = true;
        assertThat(p.checkAndComplete(new CallingBackKey("k"))).as("a check of k completes the operation on k")
                .isEqualTo(1);
        assertThatCode(() -> p.engine().checkInvariants()).as("(K5) and the gauges").doesNotThrowAnyException();
        p.close();
        assertThat(second.onCompleteCalls).as("answered once, by the check or by close()").hasValue(1);
        assertThat(p.numDelayed()).isZero();
    }
}
