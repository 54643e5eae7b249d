package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a subclass of {@link DelayedOperation} reaches through what it inherits from
 * {@code Object}: a {@code Cloneable} subclass's copy of a pending operation. A field-by-field
 * copy would share the operation's state word and its place on its lists, so that cancelling the
 * copy unlinked the original (a lost wake-up) and booked a cancel that never was. Copying is
 * refused (TimerTask.clone is final and throws): the original stays on its keys and is settled
 * exactly once.
 */
class OperationOverridesTest {

    private final ManualTimer timer = new ManualTimer();

    /** Tries to copy itself the JDK way, through super.clone(). */
    static final class CloneableOp extends DelayedOperation implements Cloneable {
        final AtomicInteger completes = new AtomicInteger();
        final AtomicInteger cancels = new AtomicInteger();
        volatile boolean completable;

        CloneableOp(long delayMs) {
            super(delayMs);
        }

        CloneableOp copy() throws CloneNotSupportedException {
            return (CloneableOp) super.clone();
        }

        @Override
        protected boolean tryComplete() {
            return completable && forceComplete();
        }

        @Override
        protected void onComplete() {
            completes.incrementAndGet();
        }

        @Override
        protected void onExpiration() {
        }

        @Override
        protected void onCancel() {
            cancels.incrementAndGet();
        }
    }

    @Test
    void clone_ofAPendingOperation_isRefusedAndTheOriginalIsStillCompletableOnItsKey() {
        DelayedOperationPurgatory<CloneableOp> p = DelayedOperationPurgatory.<CloneableOp>builder("clones")
                .timer(timer).build();
        CloneableOp first = new CloneableOp(100);
        CloneableOp original = new CloneableOp(100);
        CloneableOp last = new CloneableOp(100);
        p.tryCompleteElseWatch(first, List.of("k"));
        p.tryCompleteElseWatch(original, List.of("k"));
        p.tryCompleteElseWatch(last, List.of("k"));

        assertThatThrownBy(original::copy).isInstanceOf(CloneNotSupportedException.class)
                .hasMessageContaining(CloneableOp.class.getName());
        original.completable = true;

        assertThat(p.checkAndComplete("k")).as("the original is still found on its key").isOne();
        assertThat(original.completes.get()).isEqualTo(1);
        assertThat(p.stats().cancelled()).as("cancels booked").isZero();
        assertThat(p.numDelayed()).isEqualTo(2);
        p.close();
    }

    @Test
    void clone_ofAPendingOperationOnTwoKeys_isRefusedAndTheOriginalIsStillCompletableOnItsKeys() {
        DelayedOperationPurgatory<CloneableOp> p = DelayedOperationPurgatory.<CloneableOp>builder("clones")
                .timer(timer).build();
        CloneableOp original = new CloneableOp(100);
        p.tryCompleteElseWatch(original, List.of("a", "b"));

        assertThatThrownBy(original::copy).isInstanceOf(CloneNotSupportedException.class);
        original.completable = true;

        assertThat(p.checkAndComplete("b")).as("the original is still found on its key").isOne();
        assertThat(original.completes.get()).isEqualTo(1);
        assertThat(original.cancels.get()).isZero();
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();
        p.close();
    }
}
