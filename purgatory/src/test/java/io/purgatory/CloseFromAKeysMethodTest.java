package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} called from a key's {@code hashCode} while the purgatory asks it (promise 1 of
 * docs/reliability.md: "a key's hashCode or equals may not use the purgatory, and such a call is
 * refused before it changes anything", WatcherList K9), here as the key's emptied list leaves the
 * map during a settle: the close is refused, and the purgatory goes on whole.
 */
class CloseFromAKeysMethodTest {

    @Test
    void settle_theEmptiedKeysHashCodeClosesThePurgatory_theCloseIsRefusedAndNothingChanges() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder(
                "closing-key").timerEnabled(false).reaperEnabled(false).shards(1).build();
        for (int i = 0; i < WatcherList.MAX_EMPTY_KEPT; i++) { // the next emptied list leaves the map (K5)
            MockOperation filler = new MockOperation(60_000);
            p.tryCompleteElseWatch(filler, List.of("filler-" + i));
            filler.forceComplete();
        }
        KeyReentryTest.CallingBackKey key = new KeyReentryTest.CallingBackKey("k");
        MockOperation first = new MockOperation(60_000);
        p.tryCompleteElseWatch(first, List.of(key));
        MockOperation other = new MockOperation(60_000);
        p.tryCompleteElseWatch(other, List.of("other"));
        AtomicReference<Throwable> refused = new AtomicReference<>();
        key.onNextHash(() -> {
            try {
                p.close();
            } catch (RuntimeException e) {
                refused.set(e);
            }
        });

        assertThat(first.forceComplete()).isTrue(); // empties k's list; its removal asks k's hashCode

        assertThat(refused.get()).as("the close from inside the key's hashCode").isInstanceOf(
                KeyReentryException.class);
        assertThat(p.isClosed()).isFalse();
        assertThat(other.isCompleted()).isFalse();
        assertThatCode(() -> p.engine().checkInvariants()).doesNotThrowAnyException();
        p.close();
        assertThat(first.onCompleteCalls).hasValue(1);
        assertThat(other.onExpirationCalls).hasValue(1);
        assertThat(p.numDelayed()).isZero();
    }
}
