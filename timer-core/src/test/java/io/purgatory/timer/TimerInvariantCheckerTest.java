package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The invariant checkers the other tests lean on (TimerEngine, TimingWheel, TimerTaskList) must
 * themselves catch each broken invariant: here the state is corrupted behind the driver's back,
 * through package-private members, and each check has to name what broke. In valid states,
 * including the edges of every range, they must pass and count what is linked.
 */
class TimerInvariantCheckerTest {

    private final ManualTimer timer = new ManualTimer();

    @Test
    void checkInvariants_linkedTasks_returnsHowManyAreLinked() {
        timer.add(new CountingTask(1));
        timer.add(new CountingTask(20));
        timer.add(new CountingTask(25));
        assertThat(timer.checkInvariants()).as("still on the inbox, not linked yet").isZero();

        timer.advanceClock(0);

        assertThat(timer.checkInvariants()).isEqualTo(3);
        assertThat(timer.engine().checkInvariants()).isEqualTo(3);
    }

    @Test
    void checkInvariants_systemTimerAfterADrain_returnsHowManyAreLinked() throws InterruptedException {
        try (SystemTimer system = SystemTimer.builder("linked").clock(new ManualClock()).executor(Runnable::run)
                .build()) {
            system.add(new CountingTask(5));
            system.add(new CountingTask(500));

            assertThat(system.advanceClock(0)).isFalse();

            assertThat(system.checkInvariants()).isEqualTo(2);
        }
    }

    @Test
    void checkInvariants_tasksAtBothEndsOfTheFinestWheel_pass() {
        timer.add(new CountingTask(1)); // one tick ahead
        timer.add(new CountingTask(20)); // wheelSize ticks ahead: the far end of the finest level
        timer.add(new CountingTask(21)); // the first delay that needs the overflow wheel

        timer.advanceClock(0);

        assertThat(timer.checkInvariants()).isEqualTo(3);
        assertThat(timer.engine().wheel().overflow()).isNotNull();
    }

    @Test
    void checkInvariants_linkedTaskNeitherScheduledNorOnTheInbox_throwsNamingT3() {
        CountingTask task = new CountingTask(5);
        timer.add(task);
        timer.advanceClock(0);

        assertThat(task.expire()).isTrue(); // expired without the driver: still linked, not on the inbox

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(T3)");
    }

    @Test
    void checkInvariants_taskOnTheInboxWithoutItsBit_throwsNamingT2() {
        CountingTask task = new CountingTask(5);
        timer.add(task);

        task.leaveInbox(); // the bit cleared while the task is still on the inbox

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(T2)");
    }

    @Test
    void checkInvariants_sizeDisagreesWithTheScheduledTasks_throwsNamingE1() {
        CountingTask task = new CountingTask(5);
        timer.add(task);
        timer.advanceClock(0);

        timer.engine().onCancelled(task, false); // a size decrement without a transition

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(E1/E2)");
    }

    @Test
    void checkInvariants_queuedBucketAtTheCurrentTime_throwsAlreadyDue() {
        CountingTask task = new CountingTask(5);
        timer.add(task);
        timer.advanceClock(0); // its bucket (due at 5) is queued
        task.cancel();
        timer.advanceClock(0); // unlinked; the empty bucket stays queued until it falls due

        timer.engine().wheel().advanceClock(5); // the wheel moves without expiring that bucket

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already due");
    }

    @Test
    void checkInvariants_taskInTheWrongBucketForItsDeadline_throwsNamingW2() {
        CountingTask task = new CountingTask(5);
        timer.add(task);
        timer.advanceClock(0);

        task.deadlineMs = 12; // linked in the bucket of 5

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(W2)")
                .hasMessageContaining("deadline 12");
    }

    @Test
    void advanceClock_offTheTick_roundsTheWheelTimeDownToTheTick() {
        ManualTimer coarse = new ManualTimer(new ManualClock(), 10, 8, TaskErrorHandler.logging());
        coarse.add(new CountingTask(25));

        coarse.advanceClock(15);

        assertThat(coarse.engine().wheel().currentTimeMs()).as("(W1)").isEqualTo(10);
        assertThat(coarse.checkInvariants()).isEqualTo(1);
    }

    @Test
    void checkInvariants_taskNotAtItsSlot_throwsNamingTheBucket() {
        CountingTask first = new CountingTask(5);
        CountingTask second = new CountingTask(5);
        timer.add(first);
        timer.add(second);
        timer.advanceClock(0);

        second.slot = first.slot; // the second task claims the first one's position

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(L1)")
                .hasMessageContaining("TimerTaskList[tickMs=1, expirationMs=5]");
    }

    @Test
    void checkInvariants_slotNamingAnotherBucket_throwsNamingIt() {
        CountingTask only = new CountingTask(5);
        timer.add(only);
        timer.advanceClock(0);

        only.slot = TimerTaskList.slotOf(7, 0);

        assertThatThrownBy(timer::checkInvariants).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(L1)")
                .hasMessageContaining("the slot of bucket 7 position 0");
    }

    @Test
    void advanceClock_nothingDue_movesTheWheelToTheCurrentTime() {
        timer.advanceClock(15);

        assertThat(timer.engine().wheel().currentTimeMs()).isEqualTo(15);
        CountingTask task = new CountingTask(10);
        timer.add(task);
        timer.advanceClock(0);
        assertThat(timer.engine().wheel().overflow())
                .as("a deadline 10 ms past the moved wheel fits the finest level").isNull();
        timer.advanceClock(9);
        assertThat(task.runs()).isZero();
        timer.advanceClock(1);
        assertThat(task.runs()).isEqualTo(1);
    }

    @Test
    void nanosUntilNextWork_taskOnTheFinestWheel_isItsDeadlineMinusNow() {
        assertThat(timer.engine().nanosUntilNextWork()).isEqualTo(Long.MAX_VALUE);
        timer.advanceClock(3);
        timer.add(new CountingTask(10));
        timer.advanceClock(0);

        assertThat(timer.engine().nanosUntilNextWork()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    }
}
