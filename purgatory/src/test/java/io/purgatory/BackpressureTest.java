package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** maxPending: a full purgatory refuses new operations untouched; settled operations free their slot. */
class BackpressureTest {

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<MockOperation> purgatory =
            DelayedOperationPurgatory.<MockOperation>builder("bounded").timer(timer).reaperEnabled(false)
                    .maxPending(2).build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void tryCompleteElseWatch_thirdPendingOperation_throwsFullAndLeavesItUntouched() {
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("a"));
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("b"));
        MockOperation third = new MockOperation(100);

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(third, List.of("c")))
                .isInstanceOfSatisfying(PurgatoryFullException.class, e -> {
                    assertThat(e.maxPending()).isEqualTo(2);
                    assertThat(e.getStackTrace()).as("a refusal fills no trace").isEmpty();
                    IllegalStateException cause = new IllegalStateException("the caller's own");
                    assertThat(e.initCause(cause).getCause()).as("its cause can be set, as any's").isSameAs(cause);
                })
                .hasMessageContaining("'bounded'")
                .hasMessageContaining("maxPending=2");

        assertThat(third.tryCompleteCalls).hasValue(0);
        assertThat(third.isCompleted()).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(2);
        assertThat(purgatory.watched()).isEqualTo(2);
        assertThat(purgatory.stats().rejected()).isEqualTo(1);
    }

    @Test
    void tryCompleteElseWatch_rejectedOperation_canBeSubmittedOnceASlotFrees() {
        MockOperation first = new MockOperation(100);
        purgatory.tryCompleteElseWatch(first, List.of("a"));
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("b"));
        MockOperation third = new MockOperation(100);
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(third, List.of("c")))
                .isInstanceOf(PurgatoryFullException.class);

        first.forceComplete();

        assertThat(purgatory.tryCompleteElseWatch(third, List.of("c"))).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(2);
        third.completable = true;
        assertThat(purgatory.checkAndComplete("c")).isEqualTo(1);
        assertThat(purgatory.stats().rejected()).isEqualTo(1);
    }

    @Test
    void tryCompleteElseWatch_everyWayOfSettling_freesTheSlot() {
        MockOperation expiring = new MockOperation(10);
        MockOperation cancelled = new MockOperation(100);
        purgatory.tryCompleteElseWatch(expiring, List.of("a"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("b"));

        timer.advanceClock(10);
        purgatory.cancelForKey("b");

        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("c"));
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("d"));
        assertThat(purgatory.numDelayed()).isEqualTo(2);
        assertThat(purgatory.stats().rejected()).isZero();
    }

    @Test
    void tryCompleteElseWatch_operationsCompletedAtOnce_holdNoSlot() {
        for (int i = 0; i < 10; i++) {
            MockOperation atOnce = new MockOperation(100);
            atOnce.completable = true;
            assertThat(purgatory.tryCompleteElseWatch(atOnce, List.of("k"))).isTrue();
        }
        MockOperation cancelsItself = new MockOperation(100) {
            @Override
            public boolean tryComplete() {
                cancel();
                return false;
            }
        };
        purgatory.tryCompleteElseWatch(cancelsItself, List.of("k"));

        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("a"));
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("b"));

        assertThat(purgatory.numDelayed()).isEqualTo(2);
        assertThat(purgatory.stats().completedAtOnce()).isEqualTo(10);
        assertThat(purgatory.stats().rejected()).isZero();
    }

    @Test
    void tryCompleteElseWatch_failedSubmissions_holdNoSlot() {
        MockOperation pending = new MockOperation(100);
        purgatory.tryCompleteElseWatch(pending, List.of("a"));
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(pending, List.of("a")))
                    .isInstanceOf(IllegalStateException.class); // a double submission is refused after admission
        }

        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("b"));

        assertThat(purgatory.numDelayed()).isEqualTo(2);
    }

    @Test
    void tryCompleteElseWatch_operationAlreadyPendingInAFullPurgatory_throwsIllegalStateNotFull() {
        MockOperation first = new MockOperation(100);
        purgatory.tryCompleteElseWatch(first, List.of("a"));
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("b"));

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(first, List.of("a")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'bounded'")
                .hasMessageContaining("already submitted");

        assertThat(purgatory.stats().rejected()).as("a misuse, not a rejection for capacity").isZero();
        assertThat(purgatory.numDelayed()).isEqualTo(2);
    }

    @Test
    void tryCompleteElseWatch_manyThreadsSubmitting_admitExactlyMaxPending() throws Exception {
        int maxPending = 5;
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("contended")
                .timer(timer).reaperEnabled(false).maxPending(maxPending).build()) {
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger rejected = new AtomicInteger();
            List<TestThreads.Work> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                work.add(() -> {
                    for (int i = 0; i < 50; i++) {
                        try {
                            p.tryCompleteElseWatch(new MockOperation(100), List.of("k" + thread));
                            accepted.incrementAndGet();
                        } catch (PurgatoryFullException full) {
                            rejected.incrementAndGet();
                        }
                    }
                });
            }

            TestThreads.runConcurrently("admit", work);

            assertThat(accepted).hasValue(maxPending);
            assertThat(rejected).hasValue(8 * 50 - maxPending);
            assertThat(p.numDelayed()).isEqualTo(maxPending);
            assertThat(p.stats().rejected()).isEqualTo(8 * 50 - maxPending);
        }
    }
}
