package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

class TimerTaskListTest {

    private static List<TimerTask> contents(TimerTaskList list) {
        List<TimerTask> tasks = new ArrayList<>();
        list.forEach(tasks::add);
        return tasks;
    }

    private static List<TimerTask> tasks(int n) {
        List<TimerTask> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tasks.add(new CountingTask(i));
        }
        return tasks;
    }

    @Test
    void constructor_noTasks_isEmptyAndUnqueued() {
        TimerTaskList list = new TimerTaskList(1L);

        assertThat(list.isEmpty()).isTrue();
        assertThat(contents(list)).isEmpty();
        assertThat(list.expirationMs()).isEqualTo(TimerTaskList.NONE);
        list.checkLinks();
    }

    @Test
    void add_severalTasks_linksThemInOrderBothWays() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerTask> tasks = tasks(3);

        tasks.forEach(list::add);

        assertThat(list.isEmpty()).isFalse();
        assertThat(contents(list)).containsExactlyElementsOf(tasks);
        TimerTask a = tasks.get(0);
        TimerTask b = tasks.get(1);
        TimerTask c = tasks.get(2);
        assertThat(a.next).isSameAs(b);
        assertThat(b.prev).isSameAs(a);
        assertThat(b.next).isSameAs(c);
        assertThat(c.prev).isSameAs(b);
        assertThat(c.next).isSameAs(a.prev); // both are the sentinel
        list.checkLinks();
    }

    @Test
    void remove_middleTask_relinksNeighboursAndClearsItsLinks() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerTask> tasks = tasks(3);
        tasks.forEach(list::add);
        TimerTask a = tasks.get(0);
        TimerTask b = tasks.get(1);
        TimerTask c = tasks.get(2);

        TimerTaskList.remove(b);

        assertThat(contents(list)).containsExactly(a, c);
        assertThat(a.next).isSameAs(c);
        assertThat(c.prev).isSameAs(a);
        assertThat(b.prev).isNull();
        assertThat(b.next).isNull();
        list.checkLinks();
    }

    @Test
    void remove_headAndTail_leavesTheMiddle() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerTask> tasks = tasks(3);
        tasks.forEach(list::add);

        TimerTaskList.remove(tasks.get(0));
        TimerTaskList.remove(tasks.get(2));

        assertThat(contents(list)).containsExactly(tasks.get(1));
        list.checkLinks();
    }

    @Test
    void remove_onlyTask_leavesAnEmptyList() {
        TimerTaskList list = new TimerTaskList(1L);
        TimerTask task = new CountingTask(1);
        list.add(task);

        TimerTaskList.remove(task);

        assertThat(list.isEmpty()).isTrue();
        assertThat(contents(list)).isEmpty();
        assertThat(task.prev).isNull();
        assertThat(task.next).isNull();
        list.checkLinks();
    }

    @Test
    void remove_thenAddToAnotherList_movesTheTask() {
        TimerTaskList first = new TimerTaskList(1L);
        TimerTaskList second = new TimerTaskList(1L);
        List<TimerTask> tasks = tasks(10);
        tasks.forEach(first::add);

        for (TimerTask task : tasks.subList(0, 4)) {
            TimerTaskList.remove(task);
            second.add(task);
        }

        assertThat(contents(first)).containsExactlyElementsOf(tasks.subList(4, 10));
        assertThat(contents(second)).containsExactlyElementsOf(tasks.subList(0, 4));
        first.checkLinks();
        second.checkLinks();
    }

    @Test
    void add_taskStillLinked_failsTheAssertion() {
        assumeTrue(TimerTaskList.class.desiredAssertionStatus(), "needs -ea");
        TimerTaskList first = new TimerTaskList(1L);
        TimerTaskList second = new TimerTaskList(1L);
        TimerTask task = new CountingTask(1);
        first.add(task);

        assertThatThrownBy(() -> second.add(task)).isInstanceOf(AssertionError.class);
        assertThat(contents(first)).containsExactly(task);
        assertThat(second.isEmpty()).isTrue();
    }

    @Test
    void flush_nonEmptyList_handsEveryTaskOnceInOrderAndEmptiesTheList() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerTask> tasks = tasks(5);
        tasks.forEach(list::add);
        list.setExpiration(100L);
        List<TimerTask> flushed = new ArrayList<>();

        list.flush(task -> {
            assertThat(task.prev).isNull();
            assertThat(task.next).isNull();
            flushed.add(task);
        });

        assertThat(flushed).containsExactlyElementsOf(tasks);
        assertThat(list.isEmpty()).isTrue();
        assertThat(contents(list)).isEmpty();
        assertThat(list.expirationMs()).isEqualTo(TimerTaskList.NONE);
        list.checkLinks();
    }

    @Test
    void flush_actionReaddsToTheSameList_visitsEachTaskOnlyOnce() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerTask> tasks = tasks(4);
        tasks.forEach(list::add);
        List<TimerTask> flushed = new ArrayList<>();

        list.flush(task -> {
            flushed.add(task);
            list.add(task);
        });

        assertThat(flushed).containsExactlyElementsOf(tasks);
        assertThat(contents(list)).containsExactlyElementsOf(tasks);
        list.checkLinks();
    }

    @Test
    void flush_emptyList_callsNothingAndResetsTheExpiration() {
        TimerTaskList list = new TimerTaskList(1L);
        list.setExpiration(40L);
        List<TimerTask> flushed = new ArrayList<>();

        list.flush(flushed::add);

        assertThat(flushed).isEmpty();
        assertThat(list.expirationMs()).isEqualTo(TimerTaskList.NONE);
    }

    @Test
    void dueOrder_differentExpirations_earliestFirst() {
        TimerTaskList fineLate = new TimerTaskList(1L);
        fineLate.setExpiration(30L);
        TimerTaskList coarseEarly = new TimerTaskList(20L);
        coarseEarly.setExpiration(20L);

        assertThat(TimerTaskList.DUE_ORDER.compare(coarseEarly, fineLate)).isNegative();
        assertThat(TimerTaskList.DUE_ORDER.compare(fineLate, coarseEarly)).isPositive();
    }

    @Test
    void dueOrder_sameExpiration_finerWheelFirst() {
        TimerTaskList fine = new TimerTaskList(1L);
        fine.setExpiration(40L);
        TimerTaskList coarse = new TimerTaskList(20L);
        coarse.setExpiration(40L);
        PriorityQueue<TimerTaskList> queue = new PriorityQueue<>(TimerTaskList.DUE_ORDER);

        queue.add(coarse);
        queue.add(fine);

        assertThat(queue.poll()).isSameAs(fine);
        assertThat(queue.poll()).isSameAs(coarse);
    }

    @Test
    void setExpiration_newValue_returnsTrueAndStoresIt() {
        TimerTaskList list = new TimerTaskList(1L);

        assertThat(list.setExpiration(20L)).isTrue();
        assertThat(list.expirationMs()).isEqualTo(20L);
        assertThat(list.setExpiration(30L)).isTrue();
        assertThat(list.expirationMs()).isEqualTo(30L);
    }

    @Test
    void setExpiration_sameValue_returnsFalse() {
        TimerTaskList list = new TimerTaskList(1L);
        list.setExpiration(20L);

        assertThat(list.setExpiration(20L)).isFalse();
        assertThat(list.expirationMs()).isEqualTo(20L);
    }

    @Test
    void setExpiration_afterFlush_returnsTrueForTheOldValue() {
        TimerTaskList list = new TimerTaskList(1L);
        list.setExpiration(20L);
        list.flush(task -> { });

        assertThat(list.setExpiration(20L)).isTrue();
    }
}
