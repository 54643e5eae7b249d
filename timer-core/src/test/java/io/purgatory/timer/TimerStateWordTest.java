package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The task's state word (TimerTask T1, T2) through every transition, and the bounded inbox
 * (TimerEngine E7): a batch of pushes with no driver running is drained by the pushing thread.
 */
class TimerStateWordTest {

    @Test
    void state_throughEveryTransition_isTheLifecycleWithTheInboxBitWhilePushed() {
        ManualTimer timer = new ManualTimer();
        CountingTask scheduled = new CountingTask(5);
        CountingTask cancelled = new CountingTask(5);
        CountingTask immediate = new CountingTask(0);
        assertThat(scheduled.state()).isEqualTo(TimerTask.NEW);

        timer.add(scheduled);
        assertThat(scheduled.state()).as("(T2) on the inbox").isEqualTo(TimerTask.SCHEDULED | TimerTask.IN_INBOX);
        timer.add(cancelled);
        timer.add(immediate); // NEW -> EXPIRED, run inside add; nothing for the driver
        assertThat(immediate.state()).isEqualTo(TimerTask.EXPIRED);
        timer.advanceClock(0); // off the inbox, into a bucket
        assertThat(scheduled.state()).isEqualTo(TimerTask.SCHEDULED);
        assertThat(cancelled.cancel()).isTrue(); // SCHEDULED -> CANCELLED, on the inbox again
        assertThat(cancelled.state()).isEqualTo(TimerTask.CANCELLED | TimerTask.IN_INBOX);
        timer.add(scheduled); // a reschedule, on the inbox
        assertThat(scheduled.state()).isEqualTo(TimerTask.SCHEDULED | TimerTask.IN_INBOX);
        timer.advanceClock(5); // SCHEDULED -> EXPIRED by the driver

        assertThat(scheduled.state()).isEqualTo(TimerTask.EXPIRED);
        assertThat(cancelled.state()).isEqualTo(TimerTask.CANCELLED);
        assertThat(scheduled.runs()).isEqualTo(1);
        assertThat(cancelled.runs()).isZero();
        assertThat(immediate.runs()).isEqualTo(1);
        assertThat(cancelled.isCancelled()).isTrue();
        assertThat(scheduled.cancel()).as("a task that ran is not cancellable").isFalse();

        CountingTask closing = new CountingTask(5);
        timer.add(closing);
        timer.close(); // SCHEDULED -> CANCELLED by the close
        assertThat(closing.state()).isEqualTo(TimerTask.CANCELLED);
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void moveTo_inboxBitSetOrNot_reportsMustPushOnlyWhenItSetIt() {
        TimerTask task = new CountingTask(5);

        assertThat(task.moveTo(TimerTask.SCHEDULED)).as("NEW -> SCHEDULED sets the bit")
                .isEqualTo(TimerTask.NEW | TimerTask.MUST_PUSH);
        assertThat(task.moveTo(TimerTask.SCHEDULED)).as("already on the inbox: no second push")
                .isEqualTo(TimerTask.SCHEDULED | TimerTask.IN_INBOX);
        assertThat(task.leaveInbox()).isEqualTo(TimerTask.SCHEDULED);
        assertThat(task.moveTo(TimerTask.EXPIRED)).as("may be linked: the driver must unlink it")
                .isEqualTo(TimerTask.SCHEDULED | TimerTask.MUST_PUSH);
        assertThat(task.leaveInbox()).isEqualTo(TimerTask.EXPIRED);
        assertThat(task.moveTo(TimerTask.EXPIRED)).as("never linked: nothing for the driver")
                .isEqualTo(TimerTask.EXPIRED);
        assertThat(task.state()).isEqualTo(TimerTask.EXPIRED);
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
}
