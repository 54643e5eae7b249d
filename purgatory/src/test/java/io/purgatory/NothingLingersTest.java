package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A settled operation, whatever settled it, leaves every watch list at once (Kafka keeps it until
 * a check of each of its keys or a purge) and is then garbage.
 */
class NothingLingersTest {

    /** The ways an operation gets settled. */
    enum Path { KEY_CHECK, EXPIRY, FORCE_COMPLETE, CANCEL, CANCEL_FOR_OTHER_KEY, CLOSE_OF_OTHER_PURGATORY }

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<MockOperation> purgatory = manual("lingers");
    /** Shares key "a" with the operation under test, so "a" stays watched and its list must be unlinked. */
    private final MockOperation anchor = new MockOperation(1_000_000);

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
    }

    @ParameterizedTest
    @EnumSource(value = Path.class, names = {"KEY_CHECK", "EXPIRY", "FORCE_COMPLETE", "CANCEL", "CANCEL_FOR_OTHER_KEY"})
    void settle_byAnyPath_leavesEveryWatchListAtOnce(Path path) {
        purgatory.tryCompleteElseWatch(anchor, List.of("a"));
        MockOperation op = new MockOperation(10);
        purgatory.tryCompleteElseWatch(op, List.of("a", "b", "c"));
        assertThat(purgatory.watched()).isEqualTo(4);
        assertThat(purgatory.watchedKeys()).isEqualTo(3);

        settle(purgatory, op, path);

        assertThat(op.isCompleted()).isTrue();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
        assertThat(purgatory.watchedKeys()).isEqualTo(1);
        purgatory.engine().checkInvariants();
        assertThat(purgatory.cancelForKey("b")).isEmpty();
        assertThat(anchor.isCompleted()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void settle_byAnyPath_operationIsCollectedOnceTheTimerDriverHasRun(Path path) {
        purgatory.tryCompleteElseWatch(anchor, List.of("a"));

        WeakReference<MockOperation> ref = submitAndSettle(path);
        timer.advanceClock(0); // the timer's driver drops cancelled entries on its next pass

        assertThat(TestThreads.isCollected(ref)).as("settled operation still reachable").isTrue();
        assertThat(purgatory.watched()).isEqualTo(1);
    }

    @Test
    void settle_withoutATimer_operationIsCollectedWithNothingElseRunning() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("untimed")
                .timerEnabled(false).reaperEnabled(false).build()) {
            p.tryCompleteElseWatch(anchor, List.of("a"));

            WeakReference<MockOperation> byCheck = submitAndSettleUntimed(p, Path.KEY_CHECK);
            WeakReference<MockOperation> byForce = submitAndSettleUntimed(p, Path.FORCE_COMPLETE);
            WeakReference<MockOperation> byCancel = submitAndSettleUntimed(p, Path.CANCEL);

            assertThat(TestThreads.isCollected(byCheck)).isTrue();
            assertThat(TestThreads.isCollected(byForce)).isTrue();
            assertThat(TestThreads.isCollected(byCancel)).isTrue();
            assertThat(p.watched()).isEqualTo(1);
            p.engine().checkInvariants();
        }
    }

    @Test
    void settle_onASystemTimerWithItsReaper_operationIsCollectedWithoutFurtherCalls() {
        try (DelayedOperationPurgatory<MockOperation> p = new DelayedOperationPurgatory<>("reaped-gc")) {
            p.tryCompleteElseWatch(anchor, List.of("a"));

            WeakReference<MockOperation> ref = submitAndForceComplete(p);

            assertThat(TestThreads.isCollectedEventually(ref)).as("settled operation still reachable").isTrue();
            assertThat(p.watched()).isEqualTo(1);
        }
    }

    @Test
    void manySettledOperations_onSharedKeys_leaveNoEntriesBehind() {
        for (int i = 0; i < 1_000; i++) {
            MockOperation op = new MockOperation(10 + i % 50);
            purgatory.tryCompleteElseWatch(op, List.of("k" + i % 13, "k" + i % 7, "k" + i % 3));
            switch (i % 4) {
                case 0 -> op.forceComplete();
                case 1 -> op.cancel();
                case 2 -> {
                    op.completable = true;
                    purgatory.checkAndComplete("k" + i % 7);
                }
                default -> { } // expires below
            }
        }
        timer.advanceClock(100);

        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
        purgatory.engine().checkInvariants();
        PurgatoryStats stats = purgatory.stats();
        assertThat(stats.completed()).isEqualTo(500);
        assertThat(stats.cancelled()).isEqualTo(250);
        assertThat(stats.expired()).isEqualTo(250);
        assertThat(stats.purges()).isZero();
    }

    private WeakReference<MockOperation> submitAndSettle(Path path) {
        MockOperation op = new MockOperation(10);
        if (path == Path.CLOSE_OF_OTHER_PURGATORY) {
            DelayedOperationPurgatory<MockOperation> other = manual("other");
            other.tryCompleteElseWatch(op, List.of("a", "b"));
            other.close();
            assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
            return new WeakReference<>(op);
        }
        purgatory.tryCompleteElseWatch(op, List.of("a", "b", "c"));
        settle(purgatory, op, path);
        assertThat(op.isCompleted()).isTrue();
        return new WeakReference<>(op);
    }

    private WeakReference<MockOperation> submitAndSettleUntimed(DelayedOperationPurgatory<MockOperation> p, Path path) {
        MockOperation op = new MockOperation(10);
        p.tryCompleteElseWatch(op, List.of("a", "b", "c"));
        settle(p, op, path);
        assertThat(op.isCompleted()).isTrue();
        return new WeakReference<>(op);
    }

    private static WeakReference<MockOperation> submitAndForceComplete(DelayedOperationPurgatory<MockOperation> p) {
        MockOperation op = new MockOperation(100_000);
        p.tryCompleteElseWatch(op, List.of("a", "b"));
        assertThat(op.forceComplete()).isTrue();
        return new WeakReference<>(op);
    }

    private void settle(DelayedOperationPurgatory<MockOperation> p, MockOperation op, Path path) {
        switch (path) {
            case KEY_CHECK -> {
                op.completable = true;
                assertThat(p.checkAndComplete("c")).isEqualTo(1);
            }
            case EXPIRY -> timer.advanceClock(10);
            case FORCE_COMPLETE -> assertThat(op.forceComplete()).isTrue();
            case CANCEL -> assertThat(op.cancel()).isTrue();
            case CANCEL_FOR_OTHER_KEY -> assertThat(p.cancelForKey("b")).containsExactly(op);
            case CLOSE_OF_OTHER_PURGATORY -> throw new AssertionError("handled by the caller");
        }
    }

    private DelayedOperationPurgatory<MockOperation> manual(String name) {
        return DelayedOperationPurgatory.<MockOperation>builder(name).timer(timer).reaperEnabled(false).build();
    }
}
