package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * A close() called when the caller's stack is nearly exhausted (deep user recursion that calls
 * into the library), so that the StackOverflowError is thrown by the library's own frames: the
 * test calls it at every one of the deepest few hundred stack depths, so that some call overflows
 * at every frame it goes through. Before, a close that overflowed after its mark left the rest of
 * its sweep undone and a second close() returned at once; now the next close sweeps again (Engine
 * N5). (A settle that overflows in its booking is the limit docs/reliability.md states.)
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
            purgatories.forEach(DelayedOperationPurgatory::close);

            assertThat(ops).as("operations left unsettled after close()").filteredOn(op -> !op.isCompleted())
                    .isEmpty();
            // Not asserted: the counts of an operation whose booking an overflow cut (the limit
            // docs/reliability.md states); every operation is settled, so none waits for ever.
        });
    }
}
