package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A bucket: tasks in an array, each at the position its slot names (L1), holes bounded (L4). */
class TimerTaskListTest {

    private static List<TimerEntry> contents(TimerTaskList list) {
        List<TimerEntry> tasks = new ArrayList<>();
        list.forEach(tasks::add);
        return tasks;
    }

    private static List<TimerEntry> tasks(int n) {
        List<TimerEntry> tasks = new ArrayList<>();
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
        list.checkSlots();
    }

    @Test
    void add_severalTasks_keepsThemInOrderEachAtItsSlot() {
        TimerTaskList list = new TimerTaskList(3, 1L);
        List<TimerEntry> tasks = tasks(3);

        tasks.forEach(list::add);

        assertThat(list.isEmpty()).isFalse();
        assertThat(list.size()).isEqualTo(3);
        assertThat(contents(list)).containsExactlyElementsOf(tasks);
        for (int i = 0; i < 3; i++) {
            assertThat(tasks.get(i).slot).isEqualTo(TimerTaskList.slotOf(3, i));
            assertThat(TimerTaskList.bucketId(tasks.get(i).slot)).isEqualTo(3);
        }
        list.checkSlots();
    }

    @Test
    void slotOf_anyBucketAndPosition_isNeverTheUnlinkedSlot() {
        assertThat(TimerTaskList.slotOf(0, 0)).isNotZero();
        assertThat(TimerTaskList.bucketId(TimerTaskList.slotOf(0, 0))).isZero();
        int topId = 61 << 16 | 0xFFFF;
        assertThat(TimerTaskList.bucketId(TimerTaskList.slotOf(topId, Integer.MAX_VALUE))).isEqualTo(topId);
    }

    @Test
    void remove_middleTask_leavesAHoleAndClearsItsSlot() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerEntry> tasks = tasks(3);
        tasks.forEach(list::add);
        TimerEntry b = tasks.get(1);

        list.remove(b);

        assertThat(contents(list)).containsExactly(tasks.get(0), tasks.get(2));
        assertThat(b.slot).isZero();
        assertThat(list.size()).isEqualTo(2);
        assertThat(tasks.get(2).slot).as("not moved").isEqualTo(TimerTaskList.slotOf(0, 2));
        list.checkSlots();
    }

    @Test
    void remove_onlyTask_leavesAnEmptyListThatStartsOver() {
        TimerTaskList list = new TimerTaskList(1L);
        TimerEntry task = new CountingTask(1);
        list.add(task);

        list.remove(task);

        assertThat(list.isEmpty()).isTrue();
        assertThat(contents(list)).isEmpty();
        assertThat(task.slot).isZero();
        assertThat(list.end()).isZero();
        list.checkSlots();
    }

    @Test
    void remove_thenAddToAnotherList_movesTheTask() {
        TimerTaskList first = new TimerTaskList(1, 1L);
        TimerTaskList second = new TimerTaskList(2, 1L);
        List<TimerEntry> tasks = tasks(10);
        tasks.forEach(first::add);

        for (TimerEntry task : tasks.subList(0, 4)) {
            first.remove(task);
            second.add(task);
        }

        assertThat(contents(first)).containsExactlyElementsOf(tasks.subList(4, 10));
        assertThat(contents(second)).containsExactlyElementsOf(tasks.subList(0, 4));
        first.checkSlots();
        second.checkSlots();
    }

    @Test
    void add_fullArrayMostlyHoles_compactsInOrderInsteadOfGrowing() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerEntry> tasks = tasks(64);
        tasks.subList(0, 8).forEach(list::add);
        for (int i = 0; i < 6; i++) {
            list.remove(tasks.get(i)); // 2 of 8 left
        }

        tasks.subList(8, 14).forEach(list::add); // the first add finds the 8 slots used

        assertThat(contents(list)).containsExactlyElementsOf(tasks.subList(6, 14));
        assertThat(list.end()).as("compacted: 2 moved to the front, 6 appended").isEqualTo(8);
        list.checkSlots();
    }

    @Test
    void addAndRemove_randomChurn_keepsEverySlotRightAndTheArrayBounded() {
        TimerTaskList list = new TimerTaskList(5, 1L);
        SplittableRandom random = new SplittableRandom(11);
        List<TimerEntry> linked = new ArrayList<>();
        int mostLinked = 0;
        for (int step = 0; step < 20_000; step++) {
            if (linked.isEmpty() || random.nextInt(100) < 55) {
                TimerEntry task = new CountingTask(step);
                list.add(task);
                linked.add(task);
            } else {
                list.remove(linked.remove(random.nextInt(linked.size())));
            }
            mostLinked = Math.max(mostLinked, linked.size());
            assertThat(list.size()).isEqualTo(linked.size());
            assertThat(list.end()).as("(L4) holes bounded").isLessThanOrEqualTo(Math.max(8, 3 * mostLinked));
            if (step % 97 == 0) {
                list.checkSlots();
                assertThat(contents(list)).containsExactlyInAnyOrderElementsOf(linked);
            }
        }
        list.checkSlots();
    }

    @Test
    void add_taskStillLinked_failsTheAssertion() {
        assumeTrue(TimerTaskList.class.desiredAssertionStatus(), "needs -ea");
        TimerTaskList first = new TimerTaskList(1L);
        TimerTaskList second = new TimerTaskList(1L);
        TimerEntry task = new CountingTask(1);
        first.add(task);

        assertThatThrownBy(() -> second.add(task)).isInstanceOf(AssertionError.class);
        assertThat(contents(first)).containsExactly(task);
        assertThat(second.isEmpty()).isTrue();
    }

    @Test
    void flush_nonEmptyList_handsEveryTaskOnceInOrderAndEmptiesTheList() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerEntry> tasks = tasks(100); // several runs of LOAD_AHEAD
        tasks.forEach(list::add);
        list.remove(tasks.get(40));
        list.setExpiration(100L);
        List<TimerEntry> flushed = new ArrayList<>();

        list.flush(task -> {
            assertThat(task.slot).isZero();
            flushed.add(task);
        });

        List<TimerEntry> expected = new ArrayList<>(tasks);
        expected.remove(40);
        assertThat(flushed).containsExactlyElementsOf(expected);
        assertThat(list.isEmpty()).isTrue();
        assertThat(contents(list)).isEmpty();
        assertThat(list.expirationMs()).isEqualTo(TimerTaskList.NONE);
        list.checkSlots();
    }

    @Test
    void flush_actionReaddsToTheSameList_visitsEachTaskOnlyOnce() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerEntry> tasks = tasks(4);
        tasks.forEach(list::add);
        List<TimerEntry> flushed = new ArrayList<>();

        list.flush(task -> {
            flushed.add(task);
            list.add(task);
        });

        assertThat(flushed).containsExactlyElementsOf(tasks);
        assertThat(contents(list)).containsExactlyElementsOf(tasks);
        list.checkSlots();
    }

    @Test
    void flush_emptyList_callsNothingAndResetsTheExpiration() {
        TimerTaskList list = new TimerTaskList(1L);
        list.setExpiration(40L);
        List<TimerEntry> flushed = new ArrayList<>();

        list.flush(flushed::add);

        assertThat(flushed).isEmpty();
        assertThat(list.expirationMs()).isEqualTo(TimerTaskList.NONE);
    }

    @Test
    void drainTo_part_handsOverThatPrefixAndKeepsTheRestAndTheExpiration() {
        TimerTaskList list = new TimerTaskList(1L);
        List<TimerEntry> tasks = tasks(50);
        tasks.forEach(list::add);
        list.remove(tasks.get(3));
        list.setExpiration(70L);
        List<TimerEntry> drained = new ArrayList<>();

        assertThat(list.drainTo(10, drained::add)).isEqualTo(9);
        assertThat(list.drainTo(10, drained::add)).as("nothing left below 10").isZero();

        List<TimerEntry> prefix = new ArrayList<>(tasks.subList(0, 10));
        prefix.remove(3);
        assertThat(drained).containsExactlyElementsOf(prefix);
        assertThat(drained).allSatisfy(task -> assertThat(task.slot).isZero());
        assertThat(contents(list)).containsExactlyElementsOf(tasks.subList(10, 50));
        assertThat(list.head()).isEqualTo(10);
        assertThat(list.expirationMs()).isEqualTo(70L);
        list.checkSlots();

        assertThat(list.drainTo(list.end(), drained::add)).isEqualTo(40);
        assertThat(list.isEmpty()).isTrue();
        assertThat(list.head()).as("started over").isZero();
        list.checkSlots();
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
