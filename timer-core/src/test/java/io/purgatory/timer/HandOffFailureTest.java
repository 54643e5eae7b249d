package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link SystemTimer} whose executor fails a hand-off with an Error, or refuses it because the
 * timer is closing: every due task still runs exactly once (on the driving thread if need be),
 * only real failures are reported and counted, and the timer's size and invariants stay right.
 */
class HandOffFailureTest {

    private static final int TASKS = 300;
    private static final long BOUND_SECONDS = 10;

    private final ManualClock clock = new ManualClock();
    private final List<Map.Entry<TimerEntry, Throwable>> failures = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private SystemTimer timer(Executor executor) {
        SystemTimer timer = SystemTimer.builder("hand-off").clock(clock).executor(executor)
                .errorHandler((task, error) -> failures.add(Map.entry(task, error))).build();
        toClose.add(timer);
        return timer;
    }

    private static List<CountingTask> add(Timer timer, int n, long delayMs) {
        List<CountingTask> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CountingTask task = new CountingTask(delayMs);
            timer.add(task);
            tasks.add(task);
        }
        return tasks;
    }

    /** Throws {@code error} on its first {@code failures} calls, then hands commands to {@code then}. */
    private static Executor failingFirst(int failures, Error error, Executor then) {
        AtomicInteger calls = new AtomicInteger();
        return command -> {
            if (calls.incrementAndGet() <= failures) {
                throw error;
            }
            then.execute(command);
        };
    }

    private static OutOfMemoryError noNativeThread() {
        return new OutOfMemoryError("expected by the test: unable to create native thread");
    }

    @Test
    void advanceClock_executorThrowsAnErrorOnceThenRunsInline_everyTaskRunsOnceAndTheRefusalIsReported()
            throws Exception {
        OutOfMemoryError error = noNativeThread();
        SystemTimer timer = timer(failingFirst(1, error, Runnable::run));
        List<CountingTask> tasks = add(timer, TASKS, 10);

        clock.advanceMillis(20);
        timer.advanceClock(0);

        assertThat(tasks).allSatisfy(t -> assertThat(t.runs()).as("%s", t).isEqualTo(1));
        assertThat(failures).as("the refused run, each of its tasks").isNotEmpty()
                .extracting(Map.Entry::getValue).containsOnly(error);
        assertThat(timer.failedTaskCount()).isEqualTo(failures.size());
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void advanceClock_executorThrowsAnErrorOnceThenUsesAPool_everyTaskRunsOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2, DaemonThreads.factory("hand-off-pool"));
        toClose.add(pool::shutdownNow);
        CountDownLatch allRan = new CountDownLatch(TASKS);
        SystemTimer timer = timer(failingFirst(1, noNativeThread(), pool));
        List<CountingTask> tasks = add(timer, TASKS, 10);
        tasks.forEach(t -> t.body = allRan::countDown);

        clock.advanceMillis(20);
        timer.advanceClock(0);

        assertThat(allRan.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs()).isEqualTo(1));
        assertThat(timer.failedTaskCount()).isPositive().isEqualTo(failures.size());
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void advanceClock_executorThrowsAnErrorOnEveryCall_everyTaskRunsOnTheDriverAndIsReported() throws Exception {
        StackOverflowError error = new StackOverflowError("expected by the test");
        SystemTimer timer = timer(failingFirst(Integer.MAX_VALUE, error, Runnable::run));
        List<CountingTask> tasks = add(timer, TASKS, 10);
        Thread driver = Thread.currentThread();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        tasks.forEach(t -> t.body = () -> ranOn.add(Thread.currentThread()));

        clock.advanceMillis(20);
        timer.advanceClock(0);

        assertThat(tasks).allSatisfy(t -> assertThat(t.runs()).isEqualTo(1));
        assertThat(ranOn).hasSize(TASKS).containsOnly(driver);
        assertThat(failures).extracting(Map.Entry::getKey).containsExactlyInAnyOrderElementsOf(tasks);
        assertThat(timer.failedTaskCount()).isEqualTo(TASKS);
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void advanceClock_executorRunsTheCommandThenThrowsAnError_noTaskRunsTwice() throws Exception {
        SystemTimer timer = timer(command -> {
            command.run();
            throw noNativeThread();
        });
        List<CountingTask> tasks = add(timer, TASKS, 10);

        clock.advanceMillis(20);
        timer.advanceClock(0);

        assertThat(tasks).allSatisfy(t -> assertThat(t.runs()).isEqualTo(1));
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void add_zeroDelayAndTheExecutorThrowsAnError_runsOnceOnTheCallerAndIsReported() {
        OutOfMemoryError error = noNativeThread();
        SystemTimer timer = timer(failingFirst(1, error, Runnable::run));
        CountingTask task = new CountingTask(0);

        timer.add(task);

        assertThat(task.runs()).isEqualTo(1);
        assertThat(failures).containsExactly(Map.entry(task, error));
        assertThat(timer.failedTaskCount()).isEqualTo(1);
    }

    @Test
    void add_zeroDelayRejectedBecauseTheTimerClosedMeanwhile_runsOnceWithoutAnErrorReported() {
        SystemTimer[] self = new SystemTimer[1];
        self[0] = timer(command -> {
            self[0].close(); // the close wins the race with the hand-off, then the executor is shut
            throw new RejectedExecutionException("expected by the test: shut down");
        });
        SystemTimer timer = self[0];
        CountingTask pending = new CountingTask(50);
        timer.add(pending);
        CountingTask now = new CountingTask(0);

        timer.add(now);

        assertThat(now.runs()).as("expired before the close: it still runs, once").isEqualTo(1);
        assertThat(pending.isCancelled()).isTrue();
        assertThat(failures).as("an expected race, not a failure").isEmpty();
        assertThat(timer.failedTaskCount()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void advanceClock_dueRunRejectedBecauseTheTimerClosedMeanwhile_runsEachOnceWithoutAnErrorReported()
            throws Exception {
        SystemTimer[] self = new SystemTimer[1];
        self[0] = timer(command -> {
            self[0].close(); // a close from a task or another thread, as the executor shuts down
            throw new RejectedExecutionException("expected by the test: shut down");
        });
        SystemTimer timer = self[0];
        List<CountingTask> due = add(timer, 40, 10);
        CountingTask later = new CountingTask(1_000);
        timer.add(later);

        clock.advanceMillis(10);
        timer.advanceClock(0);

        assertThat(due).allSatisfy(t -> assertThat(t.runs()).isEqualTo(1));
        assertThat(later.runs()).isZero();
        assertThat(later.isCancelled()).isTrue();
        assertThat(failures).isEmpty();
        assertThat(timer.failedTaskCount()).isZero();
        assertThat(timer.size()).isZero();
    }
}
