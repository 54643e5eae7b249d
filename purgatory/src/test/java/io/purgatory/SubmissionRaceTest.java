package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import io.purgatory.testsupport.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A submission that fails part way is undone, and settles that land while another call is in the
 * middle of the operation are kept: a submission that fails after a cancelForKey settled the
 * operation on a key it was already watched on (Engine N2), a user timer whose add throws, a key
 * whose hashCode cancels the operation while it is watched, a settle from another thread while
 * tryComplete runs (OperationState O2), and a key whose hashCode throws an Error as its emptied
 * list leaves its map (WatcherList K5).
 */
class SubmissionRaceTest {

    /** A key that, once armed, runs {@code onHash} from its hashCode and then throws. */
    static class TrapKey {
        volatile Runnable onHash;
        volatile Throwable toThrow;

        @Override
        public int hashCode() {
            Runnable hook = onHash;
            if (hook != null) {
                onHash = null;
                hook.run();
            }
            Throwable t = toThrow;
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error e) {
                throw e;
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }
    }

    @Test
    void tryCompleteElseWatch_cancelForKeyOfItsFirstKeyThenItsSecondKeyFails_theCancelStandsAndIsCounted() {
        try (LogCapture log = new LogCapture(DelayedOperationPurgatory.class);
             DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("n2")
                .timerEnabled(false).reaperEnabled(false).maxPending(1).build()) {
            MockOperation op = new MockOperation(1_000);
            List<MockOperation> cancelled = new ArrayList<>();
            AtomicInteger hashes = new AtomicInteger();
            TrapKey armed = new TrapKey() {
                @Override
                public int hashCode() {
                    if (hashes.incrementAndGet() == 2) { // the watch, after "first" is linked
                        cancelled.addAll(p.cancelForKey("first"));
                        throw new IllegalStateException("second key fails while watched");
                    }
                    return 7;
                }
            };

            boolean completed = p.tryCompleteElseWatch(op, List.of("first", armed));

            assertThat(completed).isFalse();
            assertThat(cancelled).containsExactly(op);
            assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(op.onCancelCalls).hasValue(1);
            assertThat(p.stats().cancelled()).as("the cancel cancelForKey returned is counted").isEqualTo(1);
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThatThrownBy(() -> p.tryCompleteElseWatch(op, List.of("first")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already settled");
            p.tryCompleteElseWatch(new MockOperation(1_000), List.of("other"));
            assertThat(p.numDelayed()).as("its slot was freed").isEqualTo(1);
            assertThat(log.events()).singleElement().satisfies(event -> assertThat(event.getFormattedMessage())
                    .contains("a submission failed after another call had settled its operation"));
        }
    }

    @Test
    void tryCompleteElseWatch_keyFailsWhileWatchedAndNothingSettledIt_leavesNothingBehindAndCanBeSubmittedAgain() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("undo")
                .timerEnabled(false).reaperEnabled(false).maxPending(1).build()) {
            MockOperation op = new MockOperation(1_000);
            AtomicInteger hashes = new AtomicInteger();
            TrapKey failing = new TrapKey() {
                @Override
                public int hashCode() {
                    if (hashes.incrementAndGet() == 2) {
                        throw new IllegalStateException("fails while watched");
                    }
                    return 7;
                }
            };

            assertThatThrownBy(() -> p.tryCompleteElseWatch(op, List.of("first", failing)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watch key at index 1");

            assertThat(op.isCompleted()).isFalse();
            assertThat(op.onCancelCalls.get() + op.onCompleteCalls.get()).isZero();
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();
            assertThat(p.tryCompleteElseWatch(op, List.of("first"))).isFalse();
            assertThat(p.numDelayed()).isEqualTo(1);
        }
    }

    @Test
    void tryComplete_anotherThreadCancelsWhileItRuns_seesItSettledAndTheCallbacksWaitForItToReturn()
            throws Exception {
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("o2")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicReference<String> seenInsideTry = new AtomicReference<>();
            AtomicBoolean tryReturned = new AtomicBoolean();
            AtomicBoolean cancelRanAfterTheTry = new AtomicBoolean();
            AtomicBoolean armed = new AtomicBoolean();
            AtomicReference<DelayedOperation> self = new AtomicReference<>();
            DelayedOperation op = new DelayedOperation(60_000) {
                @Override
                protected boolean tryComplete() {
                    if (armed.compareAndSet(true, false)) {
                        CountDownLatch cancelled = new CountDownLatch(1);
                        Thread canceller = new Thread(() -> {
                            self.get().cancel();
                            cancelled.countDown();
                        });
                        canceller.start();
                        try {
                            cancelled.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        seenInsideTry.set(isCompleted() + "," + forceComplete());
                        tryReturned.set(true);
                    }
                    return false;
                }

                @Override
                protected void onComplete() {
                }

                @Override
                protected void onExpiration() {
                }

                @Override
                protected void onCancel() {
                    cancelRanAfterTheTry.set(tryReturned.get());
                }
            };
            self.set(op);
            p.tryCompleteElseWatch(op, List.of("k"));
            armed.set(true);

            assertThat(p.checkAndComplete("k")).isZero();

            assertThat(seenInsideTry.get()).as("settled inside the try; its forceComplete lost")
                    .isEqualTo("true,false");
            assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(cancelRanAfterTheTry).as("onCancel ran once the try returned").isTrue();
            assertThat(p.numDelayed()).isZero();
        }
    }

    @Test
    void settle_aKeysHashCodeThrowsAnErrorAsItsEmptiedListLeavesTheMap_theOperationLeavesItsOtherKeysToo() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("k8")
                .shards(1).timerEnabled(false).reaperEnabled(false).build()) {
            // more emptied lists than one watcher list keeps: the next emptied key is removed from the map
            for (int i = 0; i < 40; i++) {
                MockOperation filler = new MockOperation(1_000);
                p.tryCompleteElseWatch(filler, List.of("filler-" + i));
                filler.forceComplete();
            }
            TrapKey trap = new TrapKey();
            MockOperation op = new MockOperation(1_000);
            p.tryCompleteElseWatch(op, List.of("other", trap)); // trap's node is unlinked first
            trap.toThrow = new AssertionError("hashCode fails as its list is removed");

            assertThat(op.forceComplete()).isTrue();

            assertThat(op.onCompleteCalls).hasValue(1);
            assertThat(p.numDelayed()).as("not stuck at 1").isZero();
            assertThat(p.watched()).isZero();
            trap.toThrow = null;
            MockOperation next = new MockOperation(1_000);
            p.tryCompleteElseWatch(next, List.of("other"));
            next.completable = true;
            assertThat(p.checkAndComplete("other")).as("'other' holds only the new operation").isEqualTo(1);
        }
    }

    @Test
    void tryCompleteElseWatch_keysHashCodeCancelsTheOperationWhileItIsWatched_settledOnceAndOnNoList() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("settle-in-watch")
                .timer(timer).reaperEnabled(false).build();
        HookOp op = new HookOp(100);
        CancellingKey key = new CancellingKey(op);

        assertThat(p.tryCompleteElseWatch(op, List.of("plain", key))).isFalse();

        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(p.watchedKeys()).isZero();
        assertThat(timer.size()).isZero();
        assertThat(p.stats().cancelled()).isEqualTo(1);
        p.engine().checkInvariants();
        p.close();
        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
    }

    /** A key whose hashCode cancels the operation the second time it is called: while it is being watched. */
    static final class CancellingKey {
        private final DelayedOperation op;
        private final AtomicInteger calls = new AtomicInteger();

        CancellingKey(DelayedOperation op) {
            this.op = op;
        }

        @Override
        public int hashCode() {
            if (calls.incrementAndGet() == 2) {
                op.cancel();
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }
    }

}
