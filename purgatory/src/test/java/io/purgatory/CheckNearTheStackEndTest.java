package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.purgatory.NearlyExhaustedStackTest.AtEveryDepth;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A check (checkAndComplete) made when the caller's stack is nearly exhausted, at every one of
 * the deepest few hundred depths, so that a StackOverflowError is thrown in each frame of the
 * claim protocol, the ArrayList-based claim stack included: a claim taken but not recorded would
 * leave its operation marked as being tried by nobody, never tried again. Promises 1 and 2.
 */
class CheckNearTheStackEndTest {

    private static final int LEVELS = 600;

    @Test
    void checkAndComplete_atEveryDepthNearTheEndOfTheStack_aLaterCheckCompletesEveryOperation() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                checkAtEveryDepth();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "small-stack", 512 * 1024);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(t.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
    }

    private static void checkAtEveryDepth() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("deep-check")
                .timer(timer).build();
        for (int i = 0; i < 3; i++) { // every class loaded and linked at a comfortable depth
            MockOperation warm = new MockOperation(60_000);
            p.tryCompleteElseWatch(warm, List.of("warm", "shared"));
            warm.completable = true;
            p.checkAndComplete("warm");
        }
        List<MockOperation> ops = new ArrayList<>();
        for (int i = 0; i < LEVELS + 100; i++) {
            MockOperation op = new MockOperation(60_000);
            p.tryCompleteElseWatch(op, List.of("k" + i));
            op.completable = true;
            ops.add(op);
        }
        int[] overflowed = {0};
        AtEveryDepth.run(LEVELS, i -> {
            try {
                p.checkAndComplete("k" + i);
            } catch (StackOverflowError overflow) {
                overflowed[0]++;
            }
        });

        assertThat(overflowed[0]).as("checks that overflowed: the probe reached the end of the stack").isPositive();
        for (int i = 0; i < ops.size(); i++) {
            if (!ops.get(i).isCompleted()) {
                p.checkAndComplete("k" + i);
            }
        }
        assertThat(ops).as("operations a check from a shallow frame could not complete").filteredOn(
                op -> !op.isCompleted()).isEmpty();
        assertThat(p.numDelayed()).isZero();
        assertThatCode(() -> p.engine().checkInvariants()).doesNotThrowAnyException();
        p.close();
        timer.close();
    }
}
