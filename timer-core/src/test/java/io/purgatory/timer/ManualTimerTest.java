package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.purgatory.testsupport.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The timer's contract on a {@link ManualClock}. Kafka's TimerTest geometry (1 ms tick, 3 buckets
 * per wheel) makes even short delays climb several overflow levels.
 */
class ManualTimerTest {

    private static final long TICK_MS = 1L;
    private static final int WHEEL_SIZE = 3;

    private final List<Map.Entry<TimerEntry, Throwable>> failures = new CopyOnWriteArrayList<>();
    private final TaskErrorHandler recordingHandler = (task, error) -> failures.add(Map.entry(task, error));
    /** Names of the probes, in the order they ran. */
    private final List<String> log = new CopyOnWriteArrayList<>();

    private ManualClock clock;
    private long startNanos;
    private ManualTimer timer;

    @BeforeEach
    void setUp() {
        useTimer(0L, TICK_MS, WHEEL_SIZE);
    }

    @AfterEach
    void tearDown() {
        timer.close();
    }

    private void useTimer(long startNanos, long tickMs, int wheelSize) {
        if (timer != null) {
            timer.close();
        }
        this.startNanos = startNanos;
        this.clock = new ManualClock(startNanos);
        this.timer = new ManualTimer(clock, tickMs, wheelSize, recordingHandler);
    }

    /** Milliseconds since the timer was created; exact, since the tests move the clock in ms. */
    private long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNanos);
    }

    /** A task that logs its name and records the clock each time it runs, then runs its body. */
    private final class Probe extends TimerTask {
        final String name;
        final List<Long> runsAtMs = new CopyOnWriteArrayList<>();
        volatile Runnable body = () -> { };

        Probe(String name, long delayMs) {
            super(delayMs);
            this.name = name;
        }

        @Override
        public void run() {
            runsAtMs.add(nowMs());
            log.add(name);
            body.run();
        }

        int runs() {
            return runsAtMs.size();
        }

        @Override
        public String toString() {
            return "Probe[" + name + "]";
        }
    }

    private Probe probe(String name, long delayMs) {
        return new Probe(name, delayMs);
    }

    private Probe added(String name, long delayMs) {
        Probe p = probe(name, delayMs);
        timer.add(p);
        return p;
    }

    /** Advances 1 ms at a time, checking invariants after each step. */
    private void advanceBy(long ms) {
        for (long i = 0; i < ms; i++) {
            timer.advanceClock(1);
            timer.checkInvariants();
        }
    }

    // ---- Kafka's TimerTest ----

    @Test
    void add_negativeDelays_runEachOnceInsideAdd() {
        List<Probe> probes = new ArrayList<>();
        for (long delay = -5; delay <= -1; delay++) {
            Probe p = added("d" + delay, delay);
            assertThat(p.runs()).as("ran inside add").isEqualTo(1);
            probes.add(p);
        }

        timer.advanceClock(0);
        advanceBy(10);

        assertThat(log).containsExactly("d-5", "d-4", "d-3", "d-2", "d-1");
        probes.forEach(p -> assertThat(p.runsAtMs).containsExactly(0L));
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    @Test
    void add_zeroDelay_runsInsideAddOnTheCallingThread() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Probe p = probe("zero", 0);
        p.body = () -> ranOn.set(Thread.currentThread());

        timer.add(p);

        assertThat(p.runs()).isEqualTo(1);
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(p.isScheduled()).isFalse();
        assertThat(p.isCancelled()).isFalse();
        assertThat(timer.size()).isZero();
    }

    static Stream<Long> edgeClocks() {
        return Stream.of(Long.MAX_VALUE - 5_000_000L, Long.MIN_VALUE, 0L, -1L);
    }

    @ParameterizedTest(name = "clock starts at {0} ns")
    @MethodSource("edgeClocks")
    void advanceClock_kafkaTaskExpiration_runsEachTaskOnceExactlyAtItsDeadline(long startNanos) {
        useTimer(startNanos, TICK_MS, WHEEL_SIZE);
        List<Probe> probes = new ArrayList<>();
        for (long delay = 0; delay < 5; delay++) {
            probes.add(added("a" + delay, delay));
        }
        for (long delay = 10; delay < 100; delay++) {
            probes.add(added("b" + delay, delay));
            probes.add(added("c" + delay, delay));
        }
        for (long delay = 100; delay < 500; delay++) {
            probes.add(added("d" + delay, delay));
        }
        timer.checkInvariants();

        for (long step = 1; timer.size() > 0; step++) {
            assertThat(step).as("all tasks ran by their deadlines").isLessThanOrEqualTo(500);
            timer.advanceClock(1);
            timer.checkInvariants();
            long now = nowMs();
            long stillScheduled = probes.stream().filter(p -> p.delayMs() > now).count();
            assertThat(timer.size()).as("size at %d ms", now).isEqualTo(stillScheduled);
        }

        assertThat(nowMs()).isEqualTo(499L);
        for (Probe p : probes) {
            assertThat(p.runsAtMs).as("%s", p).containsExactly(p.delayMs());
        }
        assertThat(failures).isEmpty();
    }

    // ---- never early, at most once, cancel ----

    @Test
    void advanceClock_beforeTheDeadline_doesNotRunTheTask() {
        Probe p = added("p", 10);

        advanceBy(9);

        assertThat(p.runs()).isZero();
        assertThat(p.isScheduled()).isTrue();
        assertThat(timer.size()).isEqualTo(1);
    }

    @Test
    void advanceClock_toTheDeadline_runsTheTaskOnceAndNeverAgain() {
        Probe p = added("p", 10);
        advanceBy(9);

        assertThat(timer.advanceClock(1)).isTrue();
        assertThat(p.runsAtMs).containsExactly(10L);
        assertThat(timer.size()).isZero();
        assertThat(p.isScheduled()).isFalse();
        assertThat(p.isCancelled()).isFalse();

        advanceBy(100);
        timer.advanceClock(1_000_000);
        assertThat(p.runs()).isEqualTo(1);
    }

    @Test
    void advanceClock_oneStepPastSeveralDeadlines_runsThemInDeadlineOrder() {
        added("30", 30);
        added("10", 10);
        added("250", 250);
        added("20", 20);

        assertThat(timer.advanceClock(300)).isTrue();

        assertThat(log).containsExactly("10", "20", "30", "250");
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    @Test
    void advanceClock_emptyTimer_returnsFalseAndMovesTheClock() {
        assertThat(timer.advanceClock(7)).isFalse();

        assertThat(nowMs()).isEqualTo(7L);
        assertThat(timer.clock()).isSameAs(clock);
    }

    @Test
    void advanceClock_externalClockMove_runsWhatBecameDue() {
        Probe p = added("p", 10);

        clock.advanceMillis(15);
        assertThat(p.runs()).as("moving the clock runs nothing").isZero();
        timer.advanceClock(0);

        assertThat(p.runsAtMs).containsExactly(15L);
    }

    @Test
    void cancel_scheduledTask_neverRunsAndSizeDrops() {
        Probe p = added("p", 10);
        Probe other = added("other", 10);

        assertThat(p.cancel()).isTrue();

        assertThat(timer.size()).isEqualTo(1);
        assertThat(p.isCancelled()).isTrue();
        assertThat(p.isScheduled()).isFalse();
        timer.checkInvariants();
        advanceBy(50);
        assertThat(p.runs()).isZero();
        assertThat(other.runs()).isEqualTo(1);
        assertThat(timer.size()).isZero();
    }

    @Test
    void cancel_afterTheTaskWasPlaced_removesItFromItsBucket() {
        Probe p = added("p", 100);
        advanceBy(5); // the task is now linked in a bucket

        assertThat(p.cancel()).isTrue();
        timer.advanceClock(0);

        assertThat(timer.checkInvariants()).as("tasks linked in the wheel").isZero();
        advanceBy(200);
        assertThat(p.runs()).isZero();
    }

    @Test
    void cancel_twice_returnsTrueOnlyOnce() {
        Probe p = added("p", 10);

        assertThat(p.cancel()).isTrue();
        assertThat(p.cancel()).isFalse();
        assertThat(p.cancel()).isFalse();

        assertThat(timer.size()).isZero();
        assertThat(p.isCancelled()).isTrue();
    }

    @Test
    void cancel_taskNeverAdded_returnsFalse() {
        Probe p = probe("p", 10);

        assertThat(p.cancel()).isFalse();

        assertThat(p.isCancelled()).isFalse();
        assertThat(p.isScheduled()).isFalse();
    }

    @Test
    void cancel_afterTheTaskRan_returnsFalse() {
        Probe p = added("p", 10);
        advanceBy(10);

        assertThat(p.cancel()).isFalse();

        assertThat(p.isCancelled()).isFalse();
        assertThat(p.runs()).isEqualTo(1);
    }

    @Test
    void cancel_zeroDelayTaskAfterItRan_returnsFalse() {
        Probe p = added("p", 0);

        assertThat(p.cancel()).isFalse();
        assertThat(p.runs()).isEqualTo(1);
    }

    @Test
    void isScheduledAndIsCancelled_throughTheLifecycle_reportTheCurrentSchedule() {
        Probe p = probe("p", 10);
        assertThat(p.isScheduled()).isFalse();
        assertThat(p.isCancelled()).isFalse();

        timer.add(p);
        assertThat(p.isScheduled()).isTrue();
        assertThat(p.isCancelled()).isFalse();

        p.cancel();
        assertThat(p.isScheduled()).isFalse();
        assertThat(p.isCancelled()).isTrue();

        timer.add(p);
        assertThat(p.isScheduled()).isTrue();
        assertThat(p.isCancelled()).isFalse();

        advanceBy(10);
        assertThat(p.isScheduled()).isFalse();
        assertThat(p.isCancelled()).isFalse();
        assertThat(p.runs()).isEqualTo(1);
    }

    // ---- reschedule ----

    @Test
    void add_taskStillScheduled_movesItToTheNewDeadline() {
        Probe p = added("p", 10);
        advanceBy(5);

        timer.add(p); // deadline 5 + 10 = 15
        assertThat(timer.size()).isEqualTo(1);
        timer.checkInvariants();

        advanceBy(9);
        assertThat(p.runs()).as("not at the old deadline").isZero();
        assertThat(timer.size()).isEqualTo(1);
        advanceBy(1);
        assertThat(p.runsAtMs).containsExactly(15L);
        assertThat(timer.size()).isZero();
        advanceBy(30);
        assertThat(p.runs()).isEqualTo(1);
    }

    @Test
    void add_sameTaskTwiceBeforeAdvancing_runsItOnce() {
        Probe p = probe("p", 10);

        timer.add(p);
        timer.add(p);

        assertThat(timer.size()).isEqualTo(1);
        timer.checkInvariants();
        advanceBy(20);
        assertThat(p.runsAtMs).containsExactly(10L);
    }

    @Test
    void add_afterTheTaskRan_schedulesItAnew() {
        Probe p = added("p", 10);
        advanceBy(10);

        timer.add(p);

        assertThat(timer.size()).isEqualTo(1);
        assertThat(p.isScheduled()).isTrue();
        advanceBy(10);
        assertThat(p.runsAtMs).containsExactly(10L, 20L);
        assertThat(timer.size()).isZero();
    }

    @Test
    void add_afterCancel_schedulesItAnew() {
        Probe p = added("p", 10);
        advanceBy(3);
        p.cancel();

        timer.add(p);

        assertThat(p.isCancelled()).isFalse();
        assertThat(timer.size()).isEqualTo(1);
        advanceBy(20);
        assertThat(p.runsAtMs).containsExactly(13L);
    }

    @Test
    void add_rescheduleFromACoarseLevelToAFineOne_runsAtTheNewDeadlineOnly() {
        Probe p = added("p", 100); // deadline 100, several levels up
        Probe q = added("q", 100);
        advanceBy(95);
        timer.add(q); // q moves to 195
        timer.checkInvariants(); // q still sits in its old bucket until the next advance
        advanceBy(5);

        assertThat(p.runsAtMs).containsExactly(100L);
        assertThat(q.runs()).isZero();
        advanceBy(95);
        assertThat(q.runsAtMs).containsExactly(195L);
    }

    // ---- ownership and null ----

    @Test
    void add_taskOfAnotherTimer_throwsNamingBothTimers() {
        Probe p = probe("p", 10);
        try (SystemTimer other = new SystemTimer("alpha")) {
            other.add(p);

            assertThatThrownBy(() -> timer.add(p))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'alpha'")
                    .hasMessageContaining("'manual'");
            assertThat(timer.size()).isZero();
            assertThat(other.size()).isEqualTo(1);
            assertThat(p.isScheduled()).isTrue();
        }
    }

    @Test
    void add_taskOfThisTimerToAnotherTimer_throwsEvenAfterItRan() {
        Probe p = added("p", 1);
        advanceBy(1);
        try (SystemTimer other = new SystemTimer("beta")) {
            assertThatThrownBy(() -> other.add(p))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'manual'")
                    .hasMessageContaining("'beta'");
            assertThat(other.size()).isZero();
        }
        assertThat(p.runs()).isEqualTo(1);
    }

    @Test
    void add_null_throwsNpeNamingTask() {
        assertThatNullPointerException().isThrownBy(() -> timer.add(null)).withMessage("task");
    }

    // ---- huge delays ----

    static Stream<Arguments> hugeDelays() {
        return Stream.of(Long.MAX_VALUE, 1L << 62, Timer.MAX_DELAY_MS)
                .flatMap(delay -> Stream.of(Arguments.of(delay, 2), Arguments.of(delay, 3), Arguments.of(delay, 20)));
    }

    @ParameterizedTest(name = "delay {0} ms, wheel size {1}")
    @MethodSource("hugeDelays")
    void add_hugeDelay_neverRunsWithinYearsAndStaysCancellable(long delayMs, int wheelSize) {
        useTimer(0L, TICK_MS, wheelSize);
        Probe p = added("huge", delayMs);
        Probe near = added("near", 1);

        assertThat(p.runs()).isZero();
        assertThat(timer.size()).isEqualTo(2);
        timer.checkInvariants();

        long thirtyDaysMs = TimeUnit.DAYS.toMillis(30);
        for (int i = 0; i < 122; i++) { // 10 years
            timer.advanceClock(thirtyDaysMs);
            timer.checkInvariants();
            assertThat(p.runs()).isZero();
        }
        assertThat(near.runsAtMs).containsExactly(thirtyDaysMs);
        assertThat(timer.size()).isEqualTo(1);
        assertThat(p.isScheduled()).isTrue();

        assertThat(p.cancel()).isTrue();
        timer.advanceClock(0);
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    // ---- failing tasks ----

    @Test
    void advanceClock_taskThrows_othersDueInTheSameAdvanceStillRun() {
        RuntimeException boom = new IllegalStateException("boom");
        Probe first = added("first", 5);
        Probe failing = added("failing", 5);
        failing.body = () -> {
            throw boom;
        };
        Probe last = added("last", 5);
        Probe later = added("later", 8);

        assertThat(timer.advanceClock(10)).isTrue();

        assertThat(log).containsExactlyInAnyOrder("first", "failing", "last", "later");
        assertThat(first.runs()).isEqualTo(1);
        assertThat(last.runs()).isEqualTo(1);
        assertThat(later.runs()).isEqualTo(1);
        assertThat(failures).containsExactly(Map.entry(failing, boom));
        assertThat(timer.failedTaskCount()).isEqualTo(1L);
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    @Test
    void add_zeroDelayTaskThrows_addReturnsAndTheHandlerIsTold() {
        AssertionError error = new AssertionError("broken");
        Probe p = probe("p", 0);
        p.body = () -> {
            throw error;
        };

        timer.add(p);

        assertThat(p.runs()).isEqualTo(1);
        assertThat(failures).containsExactly(Map.entry(p, error));
        assertThat(timer.failedTaskCount()).isEqualTo(1L);
    }

    @Test
    void advanceClock_handlerThrowsToo_timerKeepsRunningTasks() {
        timer.close();
        clock = new ManualClock();
        startNanos = 0L;
        AtomicBoolean handlerCalled = new AtomicBoolean();
        timer = new ManualTimer(clock, TICK_MS, WHEEL_SIZE, (task, e) -> {
            handlerCalled.set(true);
            throw new IllegalStateException("handler is broken too");
        });
        Probe failing = added("failing", 3);
        failing.body = () -> {
            throw new IllegalArgumentException("expected by the test");
        };
        Probe sameTick = added("sameTick", 3);
        Probe later = added("later", 20);

        try (LogCapture log = new LogCapture(Timer.class)) {
            assertThat(timer.advanceClock(5)).isTrue();

            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("Probe[failing]");
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("handler is broken too");
                assertThat(e.getThrowableProxy().getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s.getMessage()).isEqualTo("expected by the test"));
            });
        }
        assertThat(handlerCalled).isTrue();
        assertThat(sameTick.runs()).isEqualTo(1);
        assertThat(timer.failedTaskCount()).isEqualTo(1L);

        advanceBy(15);
        assertThat(later.runsAtMs).containsExactly(20L);
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    // ---- re-entrancy ----

    @Test
    void run_addsZeroDelayTask_itRunsInlineBeforeTheOuterReturns() {
        Probe inner = probe("inner", 0);
        Probe outer = added("outer", 5);
        outer.body = () -> {
            timer.add(inner);
            log.add("outer-end");
        };

        advanceBy(5);

        assertThat(log).containsExactly("outer", "inner", "outer-end");
        assertThat(inner.runsAtMs).containsExactly(5L);
        assertThat(timer.size()).isZero();
    }

    @Test
    void run_addsDelayedTask_itRunsAtItsOwnDeadline() {
        Probe inner = probe("inner", 7);
        Probe outer = added("outer", 5);
        outer.body = () -> timer.add(inner);

        advanceBy(11);
        assertThat(timer.size()).isEqualTo(1);
        assertThat(inner.runs()).isZero();
        advanceBy(1);

        assertThat(outer.runsAtMs).containsExactly(5L);
        assertThat(inner.runsAtMs).containsExactly(12L);
        assertThat(timer.size()).isZero();
    }

    @Test
    void run_addsDelayedTaskDuringABigStep_itRunsInTheSameStepIfDue() {
        Probe inner = probe("inner", 7);
        Probe outer = added("outer", 5);
        outer.body = () -> timer.add(inner); // the clock already reads 100: inner is due at 107

        timer.advanceClock(100);
        assertThat(inner.runs()).isZero();
        timer.advanceClock(6);
        assertThat(inner.runs()).isZero();
        timer.advanceClock(1);

        assertThat(inner.runsAtMs).containsExactly(107L);
    }

    @Test
    void run_reschedulesItself_runsPeriodically() {
        Probe periodic = probe("periodic", 10);
        periodic.body = () -> {
            if (periodic.runs() < 4) {
                timer.add(periodic);
            }
        };
        timer.add(periodic);

        advanceBy(100);

        assertThat(periodic.runsAtMs).containsExactly(10L, 20L, 30L, 40L);
        assertThat(timer.size()).isZero();
    }

    @Test
    void run_cancelsATaskDueInTheSameBucket_theCancelledOneNeverRuns() {
        Probe a = probe("a", 10);
        Probe b = probe("b", 10);
        List<Boolean> cancelResults = new ArrayList<>();
        a.body = () -> cancelResults.add(b.cancel());
        b.body = () -> cancelResults.add(a.cancel());
        timer.add(a);
        timer.add(b);

        advanceBy(10);

        assertThat(a.runs() + b.runs()).as("exactly one of the two ran").isEqualTo(1);
        assertThat(cancelResults).containsExactly(true);
        assertThat(a.isCancelled() ^ b.isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
        advanceBy(20);
        assertThat(a.runs() + b.runs()).isEqualTo(1);
    }

    @Test
    void run_reschedulesATaskDueInTheSameBucket_itRunsAtItsNewDeadlineOnly() {
        Probe a = probe("a", 10);
        Probe b = probe("b", 10);
        a.body = () -> timer.add(b);
        b.body = () -> timer.add(a);
        timer.add(a);
        timer.add(b);

        advanceBy(10);
        Probe first = a.runs() == 1 ? a : b;
        Probe second = first == a ? b : a;
        assertThat(first.runsAtMs).containsExactly(10L);
        assertThat(second.runs()).isZero();
        assertThat(timer.size()).isEqualTo(1);

        first.body = () -> { };
        advanceBy(10);
        assertThat(second.runsAtMs).containsExactly(20L);
        assertThat(first.runsAtMs).containsExactly(10L);
    }

    @Test
    void run_callsAdvanceClock_returnsFalseAndTheOuterCallRunsWhatBecameDue() {
        List<Boolean> innerResults = new ArrayList<>();
        Probe later = added("later", 8);
        Probe outer = added("outer", 1);
        outer.body = () -> innerResults.add(timer.advanceClock(10));

        boolean outerResult = timer.advanceClock(1);

        assertThat(outerResult).isTrue();
        assertThat(innerResults).containsExactly(false);
        assertThat(nowMs()).isEqualTo(11L);
        assertThat(outer.runsAtMs).containsExactly(1L);
        assertThat(later.runsAtMs).containsExactly(11L);
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    @Test
    void run_closesTheTimer_tasksStillScheduledNeverRun() {
        Probe first = added("first", 10);
        Probe second = added("second", 10);
        Probe later = added("later", 20);
        first.body = timer::close;
        second.body = timer::close;

        timer.advanceClock(10);

        assertThat(log).hasSize(1); // whichever of the two ran closed the timer
        Probe notRun = first.runs() == 0 ? first : second;
        assertThat(notRun.isCancelled()).isTrue();
        assertThat(later.isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
        assertThatThrownBy(() -> timer.advanceClock(20)).isInstanceOf(IllegalStateException.class);
        assertThat(later.runs()).isZero();
    }

    @Test
    void run_cancelsASiblingThenCloses_theRestAreCancelledAndNothingBreaks() {
        // whichever of the three runs first cancels the other two, the one after it in the
        // bucket included, then closes the timer
        List<Probe> probes = List.of(added("a", 10), added("b", 10), added("c", 10));
        for (Probe p : probes) {
            p.body = () -> {
                probes.forEach(TimerTask::cancel);
                timer.close();
            };
        }

        timer.advanceClock(10);

        assertThat(log).hasSize(1);
        assertThat(probes).filteredOn(TimerTask::isCancelled).hasSize(2);
        assertThat(timer.size()).isZero();
    }

    @Test
    void run_closesTheTimerAmongManyDueTasks_noneOfTheOthersRuns() {
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            probes.add(added("p" + i, 10 + i % 3));
        }
        for (Probe p : probes) {
            p.body = timer::close;
        }

        timer.advanceClock(50);

        assertThat(log).hasSize(1);
        assertThat(probes).filteredOn(TimerTask::isCancelled).hasSize(19);
        assertThat(timer.size()).isZero();
    }

    // ---- close ----

    @Test
    void close_pendingTasks_neverRunAndAreCancelled() {
        Probe linked = added("linked", 10);
        advanceBy(2); // linked in a bucket
        Probe inInbox = added("inInbox", 10); // not yet placed

        timer.close();

        assertThat(timer.size()).isZero();
        assertThat(linked.isCancelled()).isTrue();
        assertThat(inInbox.isCancelled()).isTrue();
        assertThat(linked.cancel()).isFalse();
        clock.advanceMillis(100);
        assertThat(log).isEmpty();
    }

    @Test
    void close_twice_isIdempotent() {
        Probe p = added("p", 10);

        timer.close();
        timer.close();

        assertThat(timer.size()).isZero();
        assertThat(p.isCancelled()).isTrue();
    }

    @Test
    void add_afterClose_throwsIseAndDoesNotSchedule() {
        timer.close();
        Probe p = probe("p", 10);
        Probe zero = probe("zero", 0);

        assertThatThrownBy(() -> timer.add(p)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> timer.add(zero)).isInstanceOf(IllegalStateException.class);

        assertThat(timer.size()).isZero();
        assertThat(p.isScheduled()).isFalse();
        assertThat(zero.runs()).isZero();
    }

    @Test
    void advanceClock_afterClose_throwsIse() {
        timer.close();

        assertThatThrownBy(() -> timer.advanceClock(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void close_whileAnotherThreadRunsTasks_cancelsTasksAddedMeanwhile() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Probe blocker = added("blocker", 1);
        blocker.body = () -> {
            running.countDown();
            await(release);
        };
        Thread driver = new Thread(() -> timer.advanceClock(1), "driver");
        driver.start();
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

        Probe addedMeanwhile = added("addedMeanwhile", 5); // on the inbox: the driver holds the wheel
        Thread closer = new Thread(timer::close, "closer");
        closer.start();
        awaitQueuedOnDriverLock(closer);
        release.countDown();
        driver.join(10_000);
        closer.join(10_000);

        assertThat(driver.isAlive()).isFalse();
        assertThat(closer.isAlive()).isFalse();
        assertThat(addedMeanwhile.isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
        assertThat(addedMeanwhile.runs()).isZero();
    }

    private void awaitQueuedOnDriverLock(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!timer.engine().isWaitingToDrive(thread)) {
            assertThat(System.nanoTime() - deadline).as("%s waits for the wheel", thread).isNegative();
            Thread.onSpinWait();
        }
        assertThat(timer.engine().isClosed()).isTrue();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    // ---- bad arguments ----

    @ParameterizedTest
    @ValueSource(longs = {0L, -1L, Long.MIN_VALUE, Timer.MAX_DELAY_MS + 1})
    void constructor_badTickMs_throwsIaeNamingTheValue(long tickMs) {
        assertThatThrownBy(() -> new ManualTimer(new ManualClock(), tickMs, 20, recordingHandler))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tickMs")
                .hasMessageEndingWith(": " + tickMs);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 0, -1, 65537})
    void constructor_badWheelSize_throwsIaeNamingTheValue(int wheelSize) {
        assertThatThrownBy(() -> new ManualTimer(new ManualClock(), 1, wheelSize, recordingHandler))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wheelSize")
                .hasMessageEndingWith(": " + wheelSize);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 65536})
    void constructor_wheelSizeAtTheLimits_works(int wheelSize) {
        useTimer(0L, 1, wheelSize);
        Probe p = added("p", 70_000);

        timer.advanceClock(69_999);
        assertThat(p.runs()).isZero();
        timer.advanceClock(1);
        assertThat(p.runsAtMs).containsExactly(70_000L);
        timer.checkInvariants();
    }

    @Test
    void constructor_nullClock_throwsNpeNamingIt() {
        assertThatNullPointerException().isThrownBy(() -> new ManualTimer(null)).withMessage("clock");
        assertThatNullPointerException().isThrownBy(() -> new ManualTimer(null, 1, 20, recordingHandler))
                .withMessage("clock");
    }

    @Test
    void constructor_nullErrorHandler_throwsNpeNamingIt() {
        assertThatNullPointerException().isThrownBy(() -> new ManualTimer(new ManualClock(), 1, 20, null))
                .withMessage("errorHandler");
    }

    @Test
    void advanceClock_negativeTimeout_throwsIaeNamingTimeoutMsAndKeepsTheClock() {
        assertThatThrownBy(() -> timer.advanceClock(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeoutMs")
                .hasMessageEndingWith(": -1");
        assertThat(nowMs()).isZero();
    }

    @Test
    void constructor_defaults_tickOneMsOnAClockAtZero() {
        try (ManualTimer defaults = new ManualTimer()) {
            assertThat(defaults.clock().nanoTime()).isZero();
            CountingTask task = new CountingTask(1);
            defaults.add(task);
            defaults.advanceClock(1);
            assertThat(task.runs()).isEqualTo(1);
            assertThat(defaults.toString()).contains("size=0");
        }
    }
}
