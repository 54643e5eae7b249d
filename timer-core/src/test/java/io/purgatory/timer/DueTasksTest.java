package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * DueTasks: batches of at most MAX_BATCH, copied out before dispatch (B2), or none at all; each
 * counted out of the engine's size before its hand-off (B4).
 */
class DueTasksTest {

    private final List<List<TimerEntry>> batches = new ArrayList<>();
    /** The engine's size as each hand-off saw it. */
    private final List<Long> sizeAtHandOff = new ArrayList<>();
    private final LongAdder size = new LongAdder();

    @Test
    void add_moreThanABatch_flushesEachFullBatchThenTheRestOnFlush() {
        DueTasks due = new DueTasks(recording(), size, true);
        List<TimerEntry> tasks = tasks(DueTasks.MAX_BATCH + 3);

        tasks.forEach(due::add);
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).containsExactlyElementsOf(tasks.subList(0, DueTasks.MAX_BATCH));

        due.flush();
        due.flush(); // nothing left: no empty batch
        assertThat(batches).hasSize(2);
        assertThat(batches.get(1)).containsExactlyElementsOf(tasks.subList(DueTasks.MAX_BATCH, tasks.size()));
    }

    @Test
    void add_moreThanABatch_eachBatchIsCountedOutBeforeItsHandOffWhereverItIsCut() {
        DueTasks due = new DueTasks(recording(), size, true);
        List<TimerEntry> tasks = tasks(DueTasks.MAX_BATCH + 3);
        size.add(tasks.size()); // expired by the driver, still counted until handed over

        tasks.forEach(due::add); // the full buffer cuts the first batch
        due.flush();

        assertThat(sizeAtHandOff).containsExactly(3L, 0L);
    }

    @Test
    void flush_dispatcherAddsMoreWhileDispatching_theBatchInHandIsNotOverwrittenAndNothingIsLost() {
        List<TimerEntry> reentrant = tasks(3);
        DueTasks[] holder = new DueTasks[1];
        boolean[] reentered = {false};
        Dispatcher dispatcher = new Dispatcher() {
            @Override
            public void dispatch(TimerEntry task) {
                batches.add(List.of(task));
            }

            @Override
            public void dispatchAll(TimerEntry[] tasks, int count) {
                if (!reentered[0]) { // the first batch: a task run inline expires more (B2)
                    reentered[0] = true;
                    reentrant.forEach(holder[0]::add);
                    holder[0].flush();
                }
                batches.add(List.of(tasks).subList(0, count));
            }
        };
        holder[0] = new DueTasks(dispatcher, size, true);
        List<TimerEntry> first = tasks(5);
        first.forEach(holder[0]::add);

        holder[0].flush();

        assertThat(batches).containsExactly(reentrant, first);
    }

    @Test
    void add_notBatching_dispatchesEachTaskAtOnce() {
        DueTasks due = new DueTasks(recording(), size, false);
        List<TimerEntry> tasks = tasks(2);
        size.add(2);

        due.add(tasks.get(0));
        assertThat(batches).containsExactly(List.of(tasks.get(0)));
        due.add(tasks.get(1));
        due.flush();
        assertThat(batches).containsExactly(List.of(tasks.get(0)), List.of(tasks.get(1)));
        assertThat(sizeAtHandOff).containsExactly(1L, 0L);
    }

    private Dispatcher recording() {
        return new Dispatcher() {
            @Override
            public void dispatch(TimerEntry task) {
                sizeAtHandOff.add(size.sum());
                batches.add(List.of(task));
            }

            @Override
            public void dispatchAll(TimerEntry[] tasks, int count) {
                sizeAtHandOff.add(size.sum());
                batches.add(List.of(tasks).subList(0, count));
            }
        };
    }

    private static List<TimerEntry> tasks(int n) {
        List<TimerEntry> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tasks.add(new TimerTask(1) {
                @Override
                public void run() {
                }
            });
        }
        return tasks;
    }
}
