package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka's TimingWheelTest (tick 10 ms, 5 buckets, start 1000), adapted to round-up placement and
 * to coarser levels whose tick is half the span below (20 ms here), not the whole span.
 */
class TimingWheelTest {

    private static final long TICK_MS = 10L;
    private static final int WHEEL_SIZE = 5;
    private static final long START_MS = 1000L;

    private PriorityQueue<TimerTaskList> queue;
    private TimingWheel wheel;
    /** Task to the wheel's current time when the wheel rejected it as due, in expiry order. */
    private final Map<TimerEntry, Long> expired = new LinkedHashMap<>();

    @BeforeEach
    void setUp() {
        // by expiration, and finer wheel first on a tie, as the engine orders them (TimerTaskList L3)
        queue = new PriorityQueue<>(TimerTaskList.DUE_ORDER);
        wheel = new TimingWheel(TICK_MS, WHEEL_SIZE, START_MS, queue);
    }

    private static TimerEntry task(long deadlineMs) {
        TimerEntry task = new CountingTask(1);
        task.deadlineMs = deadlineMs; // what the engine does before placing a task
        return task;
    }

    private boolean add(TimerEntry task) {
        return wheel.add(task, task.deadlineMs);
    }

    /** The engine's expiry loop, without the engine: flush due buckets and re-add their tasks. */
    private void expireDue(long nowMs) {
        while (!queue.isEmpty() && queue.peek().expirationMs() <= nowMs) {
            TimerTaskList bucket = queue.poll();
            wheel.advanceClock(bucket.expirationMs());
            bucket.flush(task -> {
                if (!add(task)) {
                    assertThat(expired.put(task, wheel.currentTimeMs())).as("expired twice").isNull();
                }
            });
        }
        wheel.advanceClock(nowMs);
    }

    @Test
    void constructor_startNotOnTick_roundsTheCurrentTimeDown() {
        TimingWheel unaligned = new TimingWheel(TICK_MS, WHEEL_SIZE, 1007L, queue);

        assertThat(unaligned.currentTimeMs()).isEqualTo(1000L);
        assertThat(unaligned.intervalMs()).isEqualTo(50L);
        assertThat(unaligned.overflow()).isNull();
    }

    @Test
    void add_deadlineWithinInterval_queuesOneBucket() {
        assertThat(add(task(1020L))).isTrue();

        assertThat(queue).hasSize(1);
        assertThat(queue.peek().expirationMs()).isEqualTo(1020L);
        assertThat(wheel.checkInvariants()).isEqualTo(1L);
    }

    @Test
    void add_deadlineBeforeCurrentTime_isRejected() {
        assertThat(add(task(999L))).isFalse();

        assertThat(queue).isEmpty();
        assertThat(wheel.checkInvariants()).isZero();
    }

    @Test
    void add_deadlineAtCurrentTime_isRejected() {
        assertThat(add(task(START_MS))).isFalse();

        assertThat(queue).isEmpty();
    }

    @Test
    void add_deadlineInsideCurrentTick_isAcceptedAndDueAtTheEndOfTheTick() {
        // Kafka rejects 1005 as already expired and runs it 5 ms early; we round up instead.
        assertThat(add(task(1005L))).isTrue();

        assertThat(queue).hasSize(1);
        assertThat(queue.peek().expirationMs()).isEqualTo(1010L);
        assertThat(wheel.overflow()).isNull();
    }

    @Test
    void add_deadlineOffTheTick_roundsUpToTheNextTick() {
        add(task(1021L));

        assertThat(queue.peek().expirationMs()).isEqualTo(1030L);
    }

    @Test
    void add_deadlinesInOneTick_shareOneQueuedBucket() {
        add(task(1011L));
        add(task(1015L));
        add(task(1020L));

        assertThat(queue).hasSize(1);
        assertThat(queue.peek().expirationMs()).isEqualTo(1020L);
        assertThat(wheel.checkInvariants()).isEqualTo(3L);
    }

    @Test
    void add_deadlineAtTheEndOfTheInterval_staysOnTheFinestLevel() {
        assertThat(add(task(START_MS + TICK_MS * WHEEL_SIZE))).isTrue();

        assertThat(wheel.overflow()).isNull();
        assertThat(queue.peek().expirationMs()).isEqualTo(1050L);
    }

    @Test
    void add_deadlineBeyondTheInterval_createsOneOverflowWheelAndReusesIt() {
        assertThat(wheel.overflow()).isNull();

        assertThat(add(task(1065L))).isTrue();
        TimingWheel overflow = wheel.overflow();
        assertThat(overflow).isNotNull();
        assertThat(overflow.tickMs()).as("half the finest span").isEqualTo(20L);
        assertThat(overflow.leadMs()).as("a whole tick: its buckets fit the finest span a tick early").isEqualTo(20L);
        assertThat(overflow.currentTimeMs()).isEqualTo(1000L);

        assertThat(add(task(1079L))).isTrue();
        assertThat(wheel.overflow()).isSameAs(overflow);
        assertThat(overflow.overflow()).isNull();
        // a coarser bucket is due at its start, at or before its tasks' deadlines
        assertThat(queue).hasSize(1);
        assertThat(queue.peek().expirationMs()).isEqualTo(1060L);
        assertThat(wheel.checkInvariants()).isEqualTo(2L);
    }

    @Test
    void advanceClock_withinTheCurrentTick_doesNotMove() {
        wheel.advanceClock(1005L);

        assertThat(wheel.currentTimeMs()).isEqualTo(1000L);
    }

    @Test
    void advanceClock_pastATick_roundsDownToTheTick() {
        wheel.advanceClock(1010L);
        assertThat(wheel.currentTimeMs()).isEqualTo(1010L);

        wheel.advanceClock(1027L);
        assertThat(wheel.currentTimeMs()).isEqualTo(1020L);
    }

    @Test
    void advanceClock_backwards_doesNotMove() {
        wheel.advanceClock(1030L);

        wheel.advanceClock(1010L);

        assertThat(wheel.currentTimeMs()).isEqualTo(1030L);
    }

    @Test
    void advanceClock_withAnOverflowWheel_roundsDownOnEveryLevel() {
        add(task(1060L));

        wheel.advanceClock(1070L);

        assertThat(wheel.currentTimeMs()).isEqualTo(1070L);
        assertThat(wheel.overflow().currentTimeMs()).isEqualTo(1060L);
    }

    @Test
    void add_afterAdvancing_measuresFromTheNewCurrentTime() {
        TimerEntry reinserted = task(1070L);
        add(reinserted); // overflow bucket due at 1060
        TimingWheel overflow = wheel.overflow();

        expireDue(1065L); // flushes the overflow bucket: 1070 moves to the finest level

        assertThat(wheel.currentTimeMs()).isEqualTo(1060L);
        assertThat(overflow.currentTimeMs()).isEqualTo(1060L);
        assertThat(add(task(1110L))).isTrue(); // 50 ahead of 1060: finest level
        assertThat(add(task(1111L))).isTrue(); // beyond: the overflow wheel, at 1060
        assertThat(wheel.overflow()).isSameAs(overflow);
        assertThat(expired).isEmpty();
        assertThat(wheel.checkInvariants()).isEqualTo(3L);
    }

    @Test
    void add_hugeDeadline_stopsAtALevelThatSpansIt() {
        long deadlineMs = START_MS + Timer.MAX_DELAY_MS;

        assertThat(add(task(deadlineMs))).isTrue();

        int levels = 0;
        TimingWheel top = wheel;
        for (TimingWheel w = wheel; w != null; w = w.overflow()) {
            levels++;
            top = w;
        }
        // level k >= 1 has a tick of 10 * 2^k ms and spans 5 of them: about 56 levels reach 2^61
        assertThat(levels).isBetween(2, 64);
        assertThat(top.intervalMs()).isGreaterThan(Timer.MAX_DELAY_MS);
        assertThat(wheel.checkInvariants()).isEqualTo(1L);
    }

    @Test
    void expireDue_manyDeadlines_expiresEachOnceAtTheEndOfItsTick() {
        List<TimerEntry> tasks = new ArrayList<>();
        for (long d = START_MS + 1; d <= START_MS + 700; d++) {
            TimerEntry t = task(d);
            assertThat(add(t)).isTrue();
            tasks.add(t);
        }

        for (long now = START_MS; now <= START_MS + 710; now++) {
            expireDue(now);
            wheel.checkInvariants();
            for (Map.Entry<TimerEntry, Long> e : expired.entrySet()) {
                assertThat(e.getValue()).as("expired after the clock").isLessThanOrEqualTo(now);
            }
        }

        assertThat(expired.keySet()).containsExactlyInAnyOrderElementsOf(tasks);
        for (TimerEntry t : tasks) {
            long endOfTick = (t.deadlineMs + TICK_MS - 1) / TICK_MS * TICK_MS;
            assertThat(expired.get(t)).as("deadline %d", t.deadlineMs).isEqualTo(endOfTick);
        }
        assertThat(queue).isEmpty();
    }

    @Test
    void expireDue_coarseAndFinestBucketsDueTogether_expiresTheFinestAndReaddsTheCoarse() {
        // Both buckets are due at 1060: the coarse one (tick 20) holds 1075, the finest one 1060.
        TimerEntry late = task(1075L);
        TimerEntry due = task(1060L);
        add(late);
        add(due);

        expireDue(1060L);

        assertThat(expired).containsOnlyKeys(due);
        assertThat(wheel.checkInvariants()).isEqualTo(1L);
        expireDue(1080L);
        assertThat(expired).containsEntry(late, 1080L);
    }

    @Test
    void unlink_tasksOnSeveralLevels_removesEachFromTheBucketItsSlotNames() {
        TimerEntry fine = task(1020L);
        TimerEntry coarse = task(1075L);
        TimerEntry coarser = task(1500L);
        List.of(fine, coarse, coarser).forEach(this::add);
        assertThat(wheel.checkInvariants()).isEqualTo(3L);

        wheel.unlink(coarse);
        wheel.unlink(coarser);

        assertThat(coarse.slot).isZero();
        assertThat(coarser.slot).isZero();
        assertThat(wheel.checkInvariants()).isEqualTo(1L);
        expireDue(2000L);
        assertThat(expired).containsOnlyKeys(fine);
    }
}
