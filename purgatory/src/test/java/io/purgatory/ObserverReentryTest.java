package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A {@link WaitObserver} that calls back into the purgatory from {@code started} or
 * {@code ended}: it cancels the wait it is told of, submits other waits, or submits to a closing
 * purgatory. Each wait it is given is still started once on the submitting thread and ended
 * exactly once with its outcome, and nothing is left pending.
 */
class ObserverReentryTest {

    private final ManualTimer timer = new ManualTimer();
    private final WaitObserverTest.Recording recording = new WaitObserverTest.Recording();
    /** What started does after recording: set by each test. */
    private Consumer<WaitStart> onStart = start -> { };
    /** What ended does after recording. */
    private Consumer<WaitOutcome> onEnd = outcome -> { };
    private final WaitObserver reentrant = new WaitObserver() {
        @Override
        public Object started(WaitStart start) {
            Object handle = recording.started(start);
            onStart.accept(start);
            return handle;
        }

        @Override
        public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
            recording.ended(handle, outcome, failure);
            onEnd.accept(outcome);
        }
    };

    private DelayedOperationPurgatory<HookOp> purgatory(ClosePolicy policy) {
        return DelayedOperationPurgatory.<HookOp>builder("reentered").timer(timer).observer(reentrant)
                .closePolicy(policy).build();
    }

    @Test
    void started_cancelsTheWaitBeingSubmitted_itEndsCancelledOnceAndNothingIsLeft() {
        DelayedOperationPurgatory<HookOp> p = purgatory(ClosePolicy.EXPIRE);
        HookOp op = new HookOp(100);
        onStart = start -> op.cancel();

        boolean completed = p.tryCompleteElseWatch(op, List.of("k"));

        assertThat(completed).isFalse();
        assertThat(op.callbackCounts()).isEqualTo("0,0,1");
        assertThat(recording.ends).containsExactly("CANCELLED");
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        assertThat(timer.size()).isZero();
        p.engine().checkInvariants();
        p.close();
        assertThat(recording.ends).hasSize(1);
    }

    @Test
    void started_submitsAnotherWaitThatCompletesAtOnce_eachStartedAndEndedOnceInOrder() {
        DelayedOperationPurgatory<HookOp> p = purgatory(ClosePolicy.EXPIRE);
        HookOp outer = new HookOp(100);
        HookOp inner = new HookOp(100);
        inner.completable = true;
        onStart = start -> {
            if (start.keys().equals(List.of("outer"))) {
                p.tryCompleteElseWatch(inner, List.of("inner", "outer"));
            }
        };

        p.tryCompleteElseWatch(outer, List.of("outer"));
        outer.completable = true;
        assertThat(p.checkAndComplete("outer")).isOne();

        assertThat(recording.starts).extracting(WaitStart::keys)
                .containsExactly(List.of("outer"), List.of("inner", "outer"));
        assertThat(recording.endedHandles).containsExactly(1, 0);
        assertThat(recording.ends).containsExactly("COMPLETED_AT_ONCE", "COMPLETED");
        assertThat(p.numDelayed()).isZero();
        p.close();
    }

    @Test
    void ended_submitsANewWaitOnTheSameKey_itIsWatchedAndTheCloseEndsItClosed() {
        DelayedOperationPurgatory<HookOp> p = purgatory(ClosePolicy.CANCEL);
        List<HookOp> successors = new ArrayList<>();
        onEnd = outcome -> {
            if (outcome == WaitOutcome.COMPLETED && successors.isEmpty()) {
                HookOp next = new HookOp(100);
                successors.add(next);
                p.tryCompleteElseWatch(next, List.of("k"));
            }
        };
        HookOp first = new HookOp(100);
        p.tryCompleteElseWatch(first, List.of("k"));
        first.completable = true;

        assertThat(p.checkAndComplete("k")).isOne();

        assertThat(successors).hasSize(1);
        assertThat(p.numDelayed()).as("the successor waits").isOne();
        p.close();
        assertThat(recording.ends).containsExactly("COMPLETED", "CLOSED");
        assertThat(successors.get(0).callbackCounts()).isEqualTo("0,0,1");
    }

    @Test
    void ended_ofAWaitTheCloseSettled_submitsToTheClosingPurgatory_isRefusedAndTheOperationIsLeftUntouched() {
        DelayedOperationPurgatory<HookOp> p = purgatory(ClosePolicy.EXPIRE);
        HookOp refused = new HookOp(100);
        List<Throwable> refusals = new ArrayList<>();
        onEnd = outcome -> {
            try {
                p.tryCompleteElseWatch(refused, List.of("k"));
            } catch (IllegalStateException closed) {
                refusals.add(closed);
            }
        };
        p.tryCompleteElseWatch(new HookOp(100), List.of("k"));

        p.close();

        assertThat(refusals).singleElement().satisfies(e -> assertThat(e).hasMessageContaining("closed"));
        assertThat(refused.isCompleted()).isFalse();
        assertThat(recording.starts).hasSize(1);
        assertThat(recording.ends).containsExactly("CLOSED");
        DelayedOperationPurgatory<HookOp> elsewhere = DelayedOperationPurgatory.<HookOp>builder("elsewhere")
                .timer(timer).build();
        assertThat(elsewhere.tryCompleteElseWatch(refused, List.of("k"))).isFalse();
        elsewhere.close();
    }
}
