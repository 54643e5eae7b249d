package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * TimerEngine E7: a task running on the driving thread, in the middle of a bucket's flush,
 * cancels the task the flush visits next and then enough others to reach a batch of the inbox.
 * The helping drain must wait for the driver: run there, it would unlink tasks from the detached
 * bucket the flush is walking, losing the rest of the bucket.
 */
class HelpDrainReentrancyTest {

    @Test
    void advanceClock_manualTimerTaskCancelsItsNeighbourThenABatch_everyOtherTaskRunsOnce() {
        ManualTimer timer = new ManualTimer();
        assertEveryOtherTaskRuns(timer, 1, () -> timer.advanceClock(10));
        timer.close();
    }

    @Test
    void advanceClock_rejectedRunOnTheDriverCancelsItsNeighbourThenABatch_everyOtherTaskRunsOnce() throws Exception {
        ManualClock clock = new ManualClock();
        SystemTimer timer = SystemTimer.builder("rejecting").clock(clock)
                .executor(command -> {
                    throw new RejectedExecutionException("expected by the test: full");
                })
                .errorHandler((task, error) -> { })
                .build();
        assertEveryOtherTaskRuns(timer, DueTasks.MAX_BATCH, () -> {
            clock.advance(10, TimeUnit.MILLISECONDS);
            try {
                timer.advanceClock(0);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        timer.close();
    }

    /**
     * {@code ranBefore} tasks of one bucket run, then the next one cancels the task the flush
     * visits after it, and a batch of far-off tasks.
     */
    private static void assertEveryOtherTaskRuns(Timer timer, int ranBefore, Runnable advance) {
        List<CountingTask> farOff = new ArrayList<>();
        for (int i = 0; i < 2 * Inbox.DEAD_BATCH + 100; i++) {
            CountingTask t = new CountingTask(1_000_000);
            farOff.add(t);
            timer.add(t);
        }
        int n = ranBefore + 50;
        List<CountingTask> due = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CountingTask t = new CountingTask(5);
            due.add(t);
            timer.add(t);
        }
        // one inbox chain, taken newest first: the bucket holds the due tasks in reverse order
        int victim = n - 1 - ranBefore;
        due.get(n - 1).body = () -> {
            assertThat(due.get(victim).cancel()).isTrue();
            farOff.forEach(TimerTask::cancel);
        };

        advance.run();

        for (int i = 0; i < n; i++) {
            assertThat(due.get(i).runs()).as("task %d", i).isEqualTo(i == victim ? 0 : 1);
        }
        assertThat(timer.size()).isZero();
    }
}
