package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The task's state word shared with subclasses (TimerTask T5), and the bounded inbox
 * (TimerEngine E7): every transition of the timer's bits keeps the subclass's bits, every change
 * of the subclass's bits keeps the timer's, and a batch of pushes with no driver running is
 * drained by the pushing thread.
 */
class TimerStateWordTest {

    private static final int ALL_EXTENSION_BITS = 0xFF_FFFF;

    @Test
    void compareAndSetExtensionBits_expectedValue_setsAll24BitsAndLeavesTheTimersBits() {
        ManualTimer timer = new ManualTimer();
        ExtendedTask task = new ExtendedTask(5);
        timer.add(task);
        int timerBits = task.state();

        assertThat(task.bits()).isZero();
        assertThat(task.casBits(1, 2)).as("not the current value").isFalse();
        assertThat(task.casBits(0, ALL_EXTENSION_BITS)).isTrue();

        assertThat(task.bits()).isEqualTo(ALL_EXTENSION_BITS);
        assertThat(task.state()).as("(T5) the timer's bits are untouched").isEqualTo(timerBits);
        assertThat(task.casBits(ALL_EXTENSION_BITS, 0x80_0001)).isTrue();
        assertThat(task.bits()).isEqualTo(0x80_0001);
        assertThat(task.state()).isEqualTo(timerBits);
    }

    @Test
    void extensionBits_throughEveryTimerTransition_areCarriedOverUnchanged() {
        ManualTimer timer = new ManualTimer();
        ExtendedTask scheduled = new ExtendedTask(5);
        ExtendedTask cancelled = new ExtendedTask(5);
        ExtendedTask immediate = new ExtendedTask(0);
        List<ExtendedTask> tasks = List.of(scheduled, cancelled, immediate);
        for (ExtendedTask t : tasks) {
            assertThat(t.casBits(0, 0xABCDEF)).isTrue();
        }

        timer.add(scheduled); // NEW -> SCHEDULED, on the inbox
        timer.add(cancelled);
        timer.add(immediate); // NEW -> EXPIRED, run inside add
        timer.advanceClock(0); // off the inbox, into a bucket
        assertThat(cancelled.cancel()).isTrue(); // SCHEDULED -> CANCELLED, on the inbox again
        timer.add(scheduled); // a reschedule
        timer.advanceClock(5); // SCHEDULED -> EXPIRED by the driver

        assertThat(tasks).allSatisfy(t -> assertThat(t.bits()).as("%s", t).isEqualTo(0xABCDEF));
        assertThat(scheduled.state()).isEqualTo(TimerTask.EXPIRED);
        assertThat(cancelled.state()).isEqualTo(TimerTask.CANCELLED);
        assertThat(immediate.state()).isEqualTo(TimerTask.EXPIRED);
        assertThat(scheduled.runs).isEqualTo(1);
        assertThat(cancelled.runs).isZero();
        assertThat(cancelled.isCancelled()).isTrue();
        assertThat(scheduled.cancel()).as("a task that ran is not cancellable").isFalse();

        ExtendedTask closing = new ExtendedTask(5);
        assertThat(closing.casBits(0, 0x123456)).isTrue();
        timer.add(closing);
        timer.close(); // SCHEDULED -> CANCELLED by the close
        assertThat(closing.bits()).isEqualTo(0x123456);
        assertThat(closing.state()).isEqualTo(TimerTask.CANCELLED);
    }

    @Test
    void add_aBatchOfPushesWithNoDriverRunning_thePushingThreadDrainsTheInbox() {
        ManualTimer timer = new ManualTimer();
        List<CountingTask> tasks = new ArrayList<>();
        int batch = Inbox.DEAD_BATCH * Inbox.FRESH_PER_DEAD; // new tasks per batch (Inbox I2)
        for (int i = 0; i < batch - 1; i++) {
            CountingTask t = new CountingTask(100);
            tasks.add(t);
            timer.add(t);
        }
        assertThat(timer.checkInvariants()).as("one push short of a batch: all still on the inbox").isZero();

        CountingTask last = new CountingTask(100);
        timer.add(last); // the batch-th push (E7)

        assertThat(timer.checkInvariants()).as("drained by the pushing thread").isEqualTo(batch);
        assertThat(last.state()).isEqualTo(TimerTask.SCHEDULED);
        CountingTask next = new CountingTask(100);
        timer.add(next);
        assertThat(timer.checkInvariants()).isEqualTo(batch);
        timer.advanceClock(100);
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs()).isEqualTo(1));
        assertThat(next.runs()).isEqualTo(1);
    }

    /** A task that keeps 24 bits of its own in the state word. */
    private static final class ExtendedTask extends TimerTask {
        int runs;

        ExtendedTask(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            runs++;
        }

        int bits() {
            return extensionBits();
        }

        boolean casBits(int expected, int update) {
            return compareAndSetExtensionBits(expected, update);
        }
    }
}
