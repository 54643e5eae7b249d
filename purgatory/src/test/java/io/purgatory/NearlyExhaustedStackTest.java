package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.purgatory.internal.EngineInternals;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * Calls made when the caller's stack is nearly exhausted (deep user recursion that calls into the
 * library), so that the StackOverflowError is thrown by the library's own frames: each test calls
 * at every one of the deepest few hundred stack depths, so that some call overflows at every frame
 * it goes through. A close that overflows part way is resumed by the next close, which settles
 * every operation (Closing N5); a submission that overflows leaves nothing behind, and the
 * operation can be submitted again. (A settle that overflows in its booking is the limit
 * docs/reliability.md states.)
 */
class NearlyExhaustedStackTest {

    private static final int LEVELS = 600;
    private static final long STACK_BYTES = 512 * 1024;

    /** Runs {@code attempt} once at each of the deepest {@code levels} depths of a recursion, deepest first. */
    static final class AtEveryDepth {
        private final int levels;
        private final IntConsumer attempt;
        private int deepest;
        private int attempts;

        private AtEveryDepth(int levels, IntConsumer attempt) {
            this.levels = levels;
            this.attempt = attempt;
        }

        static void run(int levels, IntConsumer attempt) {
            new AtEveryDepth(levels, attempt).descend(1);
        }

        private void descend(int depth) {
            try {
                if (depth < Integer.MAX_VALUE) {
                    descend(depth + 1);
                }
            } catch (StackOverflowError bottom) {
                if (deepest == 0) {
                    deepest = depth;
                }
            }
            if (depth > deepest - levels) {
                attempt.accept(attempts++); // an overflow here unwinds to the caller's catch, one frame up
            }
        }
    }

    /** Runs {@code body} on a thread of its own with a small stack, rethrowing what it threw. */
    private static void onSmallStack(Runnable body) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "small-stack", STACK_BYTES);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(t.isAlive()).isFalse();
        if (failure.get() instanceof Error e) {
            throw e;
        }
        if (failure.get() instanceof Exception e) {
            throw e;
        }
    }

    /** Every path once at a comfortable depth, so no class is first loaded or linked at the bottom of the stack. */
    private static void warmUp(DelayedOperationPurgatory<MockOperation> p, ManualTimer timer) {
        for (int i = 0; i < 3; i++) {
            MockOperation completed = new MockOperation(5);
            p.tryCompleteElseWatch(completed, List.of("warm", "warm-2"));
            completed.completable = true;
            p.checkAndComplete("warm");
            MockOperation cancelled = new MockOperation(5);
            p.tryCompleteElseWatch(cancelled, List.of("warm"));
            cancelled.cancel();
            MockOperation expired = new MockOperation(5);
            p.tryCompleteElseWatch(expired, List.of("warm"));
            timer.advanceClock(10);
        }
    }

    @Test
    void close_atEveryDepthNearTheEndOfTheStack_aLaterCloseSettlesEveryOperation() throws Exception {
        onSmallStack(() -> {
            List<DelayedOperationPurgatory<MockOperation>> purgatories = new ArrayList<>();
            List<MockOperation> ops = new ArrayList<>();
            for (int i = 0; i < LEVELS + 100; i++) {
                ManualTimer timer = new ManualTimer();
                DelayedOperationPurgatory<MockOperation> p =
                        DelayedOperationPurgatory.<MockOperation>builder("deep-" + i).timer(timer).build();
                if (i == 0) {
                    warmUp(p, timer);
                }
                for (int j = 0; j < 5; j++) {
                    MockOperation op = new MockOperation(60_000);
                    p.tryCompleteElseWatch(op, List.of("k" + j, "shared"));
                    ops.add(op);
                }
                purgatories.add(p);
            }

            AtEveryDepth.run(LEVELS, i -> {
                try {
                    purgatories.get(i).close();
                } catch (StackOverflowError overflow) {
                    // the caller's own frames ran out; closing again from a shallow frame must finish the job
                }
            });
            try (LogCapture waits = new LogCapture("io.purgatory.internal.CloseOnce")) {
                purgatories.forEach(DelayedOperationPurgatory::close);
                assertThat(waits.events()).as("a later close on the thread whose first close an overflow cut"
                        + " does not wait for it (CloseOnce)").isEmpty();
            }

            assertThat(ops).as("operations left unsettled after close()").filteredOn(op -> !op.isCompleted())
                    .isEmpty();
            // Not asserted: the counts of an operation whose booking an overflow cut (the limit
            // docs/reliability.md states); every operation is settled, so none waits for ever.
        });
    }

    @Test
    void tryCompleteElseWatch_atEveryDepthNearTheEndOfTheStack_anOverflowingSubmissionLeavesNothingBehind()
            throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                submitAtEveryDepth();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "small-stack", 512 * 1024);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(t.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
    }

    private static void submitAtEveryDepth() {
        int levels = 600;
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("deep-submit")
                .timer(new ManualTimer()).maxPending(levels).build();
        for (int i = 0; i < 3; i++) { // every class loaded and linked at a comfortable depth
            MockOperation warm = new MockOperation(60_000);
            p.tryCompleteElseWatch(warm, List.of("warm", "shared"));
            p.checkAndComplete("warm");
            p.cancelForKey("shared");
        }
        List<MockOperation> ops = new ArrayList<>();
        List<MockOperation> refused = new ArrayList<>();
        AtEveryDepth.run(levels, i -> {
            MockOperation op = new MockOperation(60_000);
            try {
                p.tryCompleteElseWatch(op, List.of("k" + i, "shared"));
                ops.add(op);
            } catch (StackOverflowError overflow) {
                refused.add(op);
            }
        });

        assertThat(refused).as("submissions that overflowed: the probe reached the end of the stack").isNotEmpty();
        assertThat(p.numDelayed()).isEqualTo(ops.size());
        assertThatCode(() -> p.engine().checkInvariants()).doesNotThrowAnyException();
        for (MockOperation op : refused) {
            assertThat(EngineInternals.state(op)).as("an overflowing submission leaves its operation untouched")
                    .isZero();
        }
        assertThat(p.cancelForKey("shared")).hasSize(ops.size());
        for (int i = 0; i < levels; i++) { // every admission slot is free again
            p.tryCompleteElseWatch(new MockOperation(60_000), List.of("again-" + i));
        }
        for (int j = 0; j < refused.size(); j++) { // and each refused operation can be submitted again
            MockOperation op = refused.get(j);
            op.completable = true;
            assertThat(p.cancelForKey("again-" + j)).hasSize(1);
            assertThat(p.tryCompleteElseWatch(op, List.of("resubmitted"))).isTrue();
            assertThat(op.onCompleteCalls).hasValue(1);
        }
        p.close();
        assertThat(p.numDelayed()).isZero();
    }
}
