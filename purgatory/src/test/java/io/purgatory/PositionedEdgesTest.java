package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reliability edges on the positioned path: an Error from a try during a positional check,
 * a chain of completions thousands deep through positional checks, and a settled positioned
 * operation kept by the application, which reaches nothing.
 */
class PositionedEdgesTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<String> errors = new ArrayList<>();
    private final DelayedOperationPurgatory<HookOp> purgatory = DelayedOperationPurgatory.<HookOp>builder("edges")
            .timer(timer).reaperEnabled(false)
            .errorHandler((name, op, callback, error) -> errors.add(callback + ": " + error))
            .build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void anErrorFromATryInAPositionalCheck_isReported_andTheOthersReachedAreStillTried() {
        HookOp failing = new HookOp(60_000);
        HookOp next = new HookOp(60_000);
        purgatory.tryCompleteElseWatch(failing, "k", 1);
        purgatory.tryCompleteElseWatch(next, "k", 2);
        failing.tryHook = () -> {
            throw new StackOverflowError("from tryComplete");
        };
        next.completable = true;

        assertThat(purgatory.checkAndComplete("k", 2)).isEqualTo(1);

        assertThat(errors).containsExactly("TRY_COMPLETE: java.lang.StackOverflowError: from tryComplete");
        assertThat(next.isCompleted()).isTrue();
        assertThat(failing.isCompleted()).isFalse();
        purgatory.engine().checkInvariants();
        failing.tryHook = () -> { };
        failing.completable = true;
        assertThat(purgatory.checkAndComplete("k")).as("left to the try-all check").isEqualTo(1);
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void checkAndComplete_chainOfCompletionsThroughPositionalChecks_runsInBoundedStack() {
        int depth = 50_000;
        List<HookOp> chain = new ArrayList<>();
        for (int i = 0; i < depth; i++) {
            HookOp op = new HookOp(60_000);
            op.completable = true;
            String nextKey = "k" + (i + 1);
            op.completeHook = () -> purgatory.checkAndComplete(nextKey, 1);
            chain.add(op);
        }
        for (int i = 0; i < depth; i++) {
            chain.get(i).completable = false;
            purgatory.tryCompleteElseWatch(chain.get(i), "k" + i, 1);
            chain.get(i).completable = true;
        }

        assertThat(purgatory.checkAndComplete("k0", 1)).isEqualTo(1);

        assertThat(chain).allMatch(DelayedOperation::isCompleted);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void aRetainedSettledPositionedOperation_reachesNothing_andItsNeighboursAreCollected() {
        HookOp retained = new HookOp(60_000);
        purgatory.tryCompleteElseWatch(retained, List.of("k", "other"), new long[] {5, 5});
        List<WeakReference<HookOp>> neighbours = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            HookOp op = new HookOp(60_000);
            purgatory.tryCompleteElseWatch(op, "k", i);
            neighbours.add(new WeakReference<>(op));
        }
        assertThat(purgatory.checkAndComplete("k", 100)).as("reaches half, none completes: now on the list").isZero();
        assertThat(retained.forceComplete()).isTrue(); // settled from the list of k and the heap of other

        neighbours.forEach(ref -> ref.get().completable = true);
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(200);

        assertThat(EngineInternals.holdsNoWatchLink(retained)).as("a settled operation links to nothing").isTrue();
        timer.advanceClock(0);
        for (int i = 0; i < 10 && neighbours.stream().anyMatch(ref -> ref.get() != null); i++) {
            System.gc();
        }
        assertThat(neighbours.stream().filter(ref -> ref.get() != null).count()).isZero();
    }
}
