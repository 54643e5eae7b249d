package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Promises 2 and 3 of docs/reliability.md, against a key whose hashCode calls back into the
 * purgatory (WatcherList K9). An emptied key list leaves its watcher list's map on a settle, which
 * asks the key's hashCode under the list's (reentrant) lock. Before, a submission made from that
 * hashCode on the same key linked its operation on the very list being removed: counted pending,
 * found by no check, never answered by close(). Now the call back is refused before it changes
 * anything, the settle goes on, and the operation can be submitted from a plain call.
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
