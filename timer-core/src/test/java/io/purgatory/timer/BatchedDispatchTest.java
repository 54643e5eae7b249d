package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TimerEngine (E8): expired tasks reach a {@link SystemTimer}'s executor in runs of up to
 * {@link SystemTimer#MAX_RUN}, one bucket per batch; on a manual clock, with an executor that
 * records each hand-off and runs it when the test says.
 */
class BatchedDispatchTest {

    private final ManualClock clock = new ManualClock();
    private final List<Runnable> handOffs = new ArrayList<>();
    private final List<TimerTask> ran = new ArrayList<>();
    private final List<Map.Entry<TimerEntry, Throwable>> failures = new CopyOnWriteArrayList<>();
    private SystemTimer timer;

    @AfterEach
    void tearDown() {
        if (timer != null) {
            timer.close();
        }
    }

    private SystemTimer timer(java.util.concurrent.Executor executor) {
        timer = SystemTimer.builder("batched").clock(clock).executor(executor)
                .errorHandler((task, error) -> failures.add(Map.entry(task, error))).build();
        return timer;
    }

    private List<CountingTask> add(int n, long delayMs) {
        List<CountingTask> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CountingTask t = new CountingTask(delayMs);
            t.body = () -> ran.add(t);
            timer.add(t);
            tasks.add(t);
        }
        return tasks;
    }

    @Test
    void expire_hundredTasksInOneTick_fourEvenRuns() throws Exception {
        timer(handOffs::add);
        List<CountingTask> tasks = add(100, 5);

        clock.advanceMillis(5);
        timer.advanceClock(0);

        assertThat(handOffs).as("ceil(100 / 32) runs").hasSize(4);
        assertThat(ran).isEmpty();
        List<Integer> runLengths = new ArrayList<>();
        for (Runnable r : handOffs) {
            int before = ran.size();
            r.run();
            runLengths.add(ran.size() - before);
        }
        assertThat(runLengths).containsExactly(25, 25, 25, 25);
        assertThat(ran).containsExactlyInAnyOrderElementsOf(tasks); // same tick: no order among them
        assertThat(timer.size()).isZero();
    }

    @Test
    void expire_tasksOfTwoTicksInOneTurn_aBatchPerTickAndACancelFromTheFirstWins() throws Exception {
        timer(Runnable::run);
        List<CountingTask> first = add(3, 1);
        List<CountingTask> second = add(3, 2);
        Runnable record = first.get(0).body;
        first.get(0).body = () -> {
            record.run();
            second.get(1).cancel();
        };

        clock.advanceMillis(10); // the driver is late: both ticks are due in one turn
        timer.advanceClock(0);

        assertThat(ran).hasSize(5);
        assertThat(ran.subList(0, 3)).as("the first tick's batch first").containsExactlyInAnyOrderElementsOf(first);
        assertThat(ran.subList(3, 5)).containsExactlyInAnyOrder(second.get(0), second.get(2));
        assertThat(second.get(1).isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
    }

    @Test
    void expire_executorRejectsABatch_everyTaskRunsOnTheDriverAndIsReported() throws Exception {
        RejectedExecutionException full = new RejectedExecutionException("expected by the test: full");
        timer(command -> {
            throw full;
        });
        List<CountingTask> tasks = add(40, 3);

        clock.advanceMillis(3);
        timer.advanceClock(0);

        assertThat(ran).containsExactlyInAnyOrderElementsOf(tasks);
        assertThat(failures).extracting(Map.Entry::getKey).containsExactlyElementsOf(ran);
        assertThat(failures).extracting(Map.Entry::getValue).containsOnly(full);
        assertThat(timer.failedTaskCount()).isEqualTo(40);
    }

    @Test
    void expire_moreThanABatchInOneTick_nothingLostOrRunTwice() throws Exception {
        timer(handOffs::add);
        int n = 3 * DueTasks.MAX_BATCH + 7;
        List<CountingTask> tasks = add(n, 4);

        clock.advanceMillis(4);
        timer.advanceClock(0);
        handOffs.forEach(Runnable::run);

        assertThat(ran).containsExactlyInAnyOrderElementsOf(tasks);
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs()).isEqualTo(1));
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    @Test
    void expire_moreThanABatchInOneTick_aTaskHandedOverInAFullBatchIsNoLongerCounted() throws Exception {
        timer(Runnable::run);
        int n = DueTasks.MAX_BATCH + 1; // a full batch is handed over before the last task of the tick expires
        List<Integer> sizeSeen = new ArrayList<>();
        List<CountingTask> tasks = add(n, 4);
        tasks.forEach(t -> t.body = () -> sizeSeen.add(timer.size()));

        clock.advanceMillis(4);
        timer.advanceClock(0);

        assertThat(sizeSeen).hasSize(n);
        assertThat(sizeSeen.subList(0, DueTasks.MAX_BATCH)).as("the full batch's tasks, run while the last one"
                + " is still scheduled: only that one is counted").containsOnly(1);
        assertThat(sizeSeen.get(n - 1)).isZero();
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }
}
