package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/**
 * A timer task cannot be copied: a copy made with Object.clone would share the original's state
 * word and its slot in a bucket, so that cancelling the copy would cancel, or unlink, the original.
 * TimerTask.clone is final and always throws, Cloneable or not.
 */
class TimerTaskCopyTest {

    /** A task that says it may be cloned, and copies itself through super.clone(). */
    private static final class CopyableTask extends CountingTask implements Cloneable {
        CopyableTask(long delayMs) {
            super(delayMs);
        }

        Object copy() throws CloneNotSupportedException {
            return super.clone();
        }
    }

    @Test
    void clone_ofAScheduledCloneableTask_isRefusedAndTheTaskRunsOnce() {
        ManualTimer timer = new ManualTimer();
        CopyableTask task = new CopyableTask(5);
        timer.add(task);

        assertThatThrownBy(task::copy).isInstanceOf(CloneNotSupportedException.class)
                .hasMessageContaining(CopyableTask.class.getName()).hasMessageContaining("make a new one");
        timer.advanceClock(5);

        assertThat(task.runs()).isEqualTo(1);
        assertThat(timer.size()).isZero();
        timer.close();
    }

    @Test
    void clone_declaredByTimerEntry_isFinalSoNoSubclassCanAllowIt() throws NoSuchMethodException {
        Method clone = TimerEntry.class.getDeclaredMethod("clone");

        assertThat(Modifier.isFinal(clone.getModifiers())).isTrue();
        assertThat(clone.getExceptionTypes()).containsExactly(CloneNotSupportedException.class);
    }
}
