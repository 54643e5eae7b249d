package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SystemTimer} on real time. Latches and joins bound the waits only to fail a broken
 * timer; nothing asserts how fast anything happens.
 */
class SystemTimerTest {

    private static final long BOUND_SECONDS = 10;

    private final List<Map.Entry<TimerEntry, Throwable>> failures = new CopyOnWriteArrayList<>();
    private final TaskErrorHandler recordingHandler = (task, error) -> failures.add(Map.entry(task, error));
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) { // a reaper before its timer
            toClose.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private SystemTimer timer(String name, long tickMs, int wheelSize) {
        return closeLater(SystemTimer.builder(name).settings(TimerSettings.DEFAULT.withTickMs(tickMs)
                .withWheelSize(wheelSize))
                .errorHandler(recordingHandler).build());
    }

    private SystemTimerReaper reaper(Timer timer) {
        return closeLater(SystemTimerReaper.start("test-reaper", timer));
    }

    /** A task that records where and when it ran, then counts its latch down. */
    private static final class LatchTask extends TimerTask {
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();
        final AtomicReference<Thread> ranOn = new AtomicReference<>();
        volatile long addedAtNanos;
        volatile long ranAtNanos;
        volatile Runnable body = () -> { };

        LatchTask(long delayMs) {
            super(delayMs);
        }

        void addTo(Timer timer) {
            addedAtNanos = System.nanoTime();
            timer.add(this);
        }

        @Override
        public void run() {
            ranAtNanos = System.nanoTime();
            ranOn.set(Thread.currentThread());
            runs.incrementAndGet();
            body.run();
            done.countDown();
        }

        boolean awaitRun() throws InterruptedException {
            return done.await(BOUND_SECONDS, TimeUnit.SECONDS);
        }

        long waitedMs() {
            return TimeUnit.NANOSECONDS.toMillis(ranAtNanos - addedAtNanos);
        }
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for: %s", what).isNegative();
            Thread.onSpinWait();
        }
    }

    private static void awaitParked(Thread thread) {
        awaitCondition(thread.getName() + " parked", () -> thread.getState() == Thread.State.TIMED_WAITING);
    }

    private static void awaitTerminated(SystemTimer timer) {
        awaitCondition("executor terminated", timer::isTerminated);
    }

    // ---- running tasks ----

    @Test
    void add_dueTask_runsOnceOnTheTimersDaemonExecutorThread() throws Exception {
        SystemTimer timer = timer("sys-test", 1, 20);
        SystemTimerReaper reaper = reaper(timer);
        LatchTask task = new LatchTask(5);

        task.addTo(timer);

        assertThat(task.awaitRun()).isTrue();
        assertThat(task.ranOn.get().getName()).isEqualTo("sys-test-executor");
        assertThat(task.ranOn.get().isDaemon()).isTrue();
        reaper.close();
        awaitTerminated(timer);
        assertThat(task.runs.get()).isEqualTo(1);
        assertThat(failures).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 5, 10, 20})
    void add_smallDelay_runsOnceAndNotBeforeTheDelay(long delayMs) throws Exception {
        SystemTimer timer = timer("small", 1, 20);
        SystemTimerReaper reaper = reaper(timer);
        LatchTask task = new LatchTask(delayMs);

        task.addTo(timer);

        assertThat(task.awaitRun()).isTrue();
        assertThat(task.waitedMs()).isGreaterThanOrEqualTo(delayMs);
        assertThat(timer.size()).isZero();
        reaper.close();
        awaitTerminated(timer);
        assertThat(task.runs.get()).isEqualTo(1);
    }

    @Test
    void add_negativeDelays_eachRunsOnceOnTheExecutor() throws Exception {
        SystemTimer timer = timer("expired", 1, 3);
        List<LatchTask> tasks = new ArrayList<>();
        for (long delay = -5; delay <= -1; delay++) {
            LatchTask task = new LatchTask(delay);
            task.addTo(timer);
            tasks.add(task);
        }

        timer.advanceClock(0);

        for (LatchTask task : tasks) {
            assertThat(task.awaitRun()).isTrue();
            assertThat(task.ranOn.get().getName()).isEqualTo("expired-executor");
        }
        timer.close();
        awaitTerminated(timer);
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs.get()).isEqualTo(1));
    }

    @Test
    void advanceClock_kafkaTaskExpiration_runsEachTaskOnceAndNeverEarly() throws Exception {
        SystemTimer timer = timer("expiration", 1, 3);
        List<LatchTask> tasks = new ArrayList<>();
        for (long delay = 0; delay < 5; delay++) {
            tasks.add(new LatchTask(delay));
        }
        for (long delay = 10; delay < 100; delay++) {
            tasks.add(new LatchTask(delay));
            tasks.add(new LatchTask(delay));
        }
        for (long delay = 100; delay < 500; delay++) {
            tasks.add(new LatchTask(delay));
        }
        tasks.forEach(t -> t.addTo(timer));

        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (timer.size() > 0) {
            assertThat(System.nanoTime() - bound).as("all tasks expired in time").isNegative();
            timer.advanceClock(200);
        }
        for (LatchTask task : tasks) {
            assertThat(task.awaitRun()).as("task with delay %d ran", task.delayMs()).isTrue();
        }
        timer.close();
        awaitTerminated(timer);

        for (LatchTask task : tasks) {
            assertThat(task.runs.get()).as("runs of the task with delay %d", task.delayMs()).isEqualTo(1);
            assertThat(task.waitedMs()).as("waited by the task with delay %d", task.delayMs())
                    .isGreaterThanOrEqualTo(task.delayMs());
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void advanceClock_nothingScheduled_returnsFalse() throws Exception {
        SystemTimer timer = timer("idle", 1, 20);

        assertThat(timer.advanceClock(0)).isFalse();
        assertThat(timer.advanceClock(2)).isFalse();
    }

    @Test
    void advanceClock_taskDue_returnsTrue() throws Exception {
        SystemTimer timer = timer("due", 1, 20);
        LatchTask task = new LatchTask(1);
        task.addTo(timer);

        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        boolean processed = false;
        while (!processed && System.nanoTime() - bound < 0) {
            processed = timer.advanceClock(100);
        }

        assertThat(processed).isTrue();
        assertThat(task.awaitRun()).isTrue();
    }

    // ---- cancel ----

    @Test
    void cancel_fromManyThreads_exactlyOneCallWinsPerTask() throws Exception {
        SystemTimer timer = timer("cancel", 1, 20);
        reaper(timer);
        int taskCount = 500;
        int threadCount = 4;
        List<LatchTask> tasks = new ArrayList<>();
        for (int i = 0; i < taskCount; i++) {
            LatchTask task = new LatchTask(60_000 + i);
            task.addTo(timer);
            tasks.add(task);
        }
        AtomicInteger[] wins = new AtomicInteger[taskCount];
        for (int i = 0; i < taskCount; i++) {
            wins[i] = new AtomicInteger();
        }
        CyclicBarrier start = new CyclicBarrier(threadCount);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            int offset = t * 37;
            Thread thread = new Thread(() -> {
                try {
                    start.await(BOUND_SECONDS, TimeUnit.SECONDS);
                    for (int i = 0; i < taskCount; i++) {
                        int index = (i + offset) % taskCount;
                        if (tasks.get(index).cancel()) {
                            wins[index].incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "canceller-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            assertThat(thread.isAlive()).isFalse();
        }

        assertThat(errors).isEmpty();
        for (int i = 0; i < taskCount; i++) {
            assertThat(wins[i].get()).as("successful cancels of task %d", i).isEqualTo(1);
            assertThat(tasks.get(i).isCancelled()).isTrue();
            assertThat(tasks.get(i).runs.get()).isZero();
        }
        assertThat(timer.size()).isZero();
    }

    @Test
    void advanceClock_timeoutOnAManualClock_waitsInRealTimeThenADueTaskRunsOnceTheClockPassesIt() throws Exception {
        ManualClock clock = new ManualClock();
        SystemTimer timer = closeLater(SystemTimer.builder("manual-clock").clock(clock).executor(Runnable::run)
                .errorHandler(recordingHandler).build());
        LatchTask task = new LatchTask(30);
        task.addTo(timer);

        // a hang guard, not a timing assertion: the wait is bounded by real time, not by the manual clock
        boolean processed = assertTimeoutPreemptively(Duration.ofSeconds(BOUND_SECONDS), () -> timer.advanceClock(50));

        assertThat(processed).isFalse();
        assertThat(task.runs.get()).isZero();
        clock.advanceMillis(30);
        assertThat(timer.advanceClock(0)).isTrue();
        assertThat(task.runs.get()).isEqualTo(1);
        assertThat(timer.size()).isZero();
        assertThat(failures).isEmpty();
    }

    // ---- executors and failures ----

    @Test
    void dispatch_executorRejects_taskRunsOnTheDrivingThreadAndTheHandlerIsTold() throws Exception {
        RejectedExecutionException rejection = new RejectedExecutionException("full");
        SystemTimer timer = closeLater(SystemTimer.builder("rejecting")
                .executor(command -> {
                    throw rejection;
                })
                .errorHandler(recordingHandler)
                .build());
        LatchTask task = new LatchTask(1);
        task.addTo(timer);

        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (task.runs.get() == 0) {
            assertThat(System.nanoTime() - bound).as("task ran").isNegative();
            timer.advanceClock(100);
        }

        assertThat(task.ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(task.runs.get()).isEqualTo(1);
        assertThat(failures).containsExactly(Map.entry(task, rejection));
        assertThat(timer.failedTaskCount()).isEqualTo(1L);
        assertThat(timer.size()).isZero();
    }

    @Test
    void add_zeroDelayAndRejectingExecutor_runsInsideAdd() {
        SystemTimer timer = closeLater(SystemTimer.builder("rejecting-now")
                .executor(command -> {
                    throw new RejectedExecutionException("closed");
                })
                .errorHandler(recordingHandler)
                .build());
        LatchTask task = new LatchTask(0);

        task.addTo(timer);

        assertThat(task.runs.get()).isEqualTo(1);
        assertThat(task.ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(failures).extracting(Map.Entry::getKey).containsExactly(task);
        assertThat(failures.get(0).getValue()).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void add_zeroDelayAndExecutorFailingWithAnotherException_stillRunsTheTaskAndReportsIt() {
        IllegalStateException broken = new IllegalStateException("expected by the test: executor broken");
        SystemTimer timer = closeLater(SystemTimer.builder("broken-executor")
                .executor(command -> {
                    throw broken;
                })
                .errorHandler(recordingHandler)
                .build());
        LatchTask task = new LatchTask(0);

        task.addTo(timer);

        assertThat(task.runs.get()).as("not lost").isEqualTo(1);
        assertThat(task.ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(failures).containsExactly(Map.entry(task, broken));
        assertThat(timer.failedTaskCount()).isEqualTo(1L);
    }

    @Test
    void run_taskThrows_handlerIsToldAndTheTimerCarriesOn() throws Exception {
        SystemTimer timer = timer("throwing", 1, 20);
        reaper(timer);
        IllegalStateException boom = new IllegalStateException("boom");
        LatchTask failing = new LatchTask(2);
        failing.body = () -> {
            throw boom;
        };
        LatchTask next = new LatchTask(5);

        failing.addTo(timer);
        next.addTo(timer);

        assertThat(next.awaitRun()).isTrue();
        awaitCondition("failure reported", () -> timer.failedTaskCount() == 1);
        assertThat(failures).containsExactly(Map.entry(failing, boom));
        assertThat(failing.runs.get()).isEqualTo(1);
    }

    @Test
    void executor_userSupplied_isUsedAndNotShutDownByClose() throws Exception {
        List<Runnable> submitted = new CopyOnWriteArrayList<>();
        SystemTimer timer = SystemTimer.builder("own-executor").executor(submitted::add).build();
        LatchTask task = new LatchTask(-1);

        task.addTo(timer);
        timer.close();

        assertThat(task.runs.get()).as("handed to the executor, not run").isZero();
        assertThat(submitted).hasSize(1);
        assertThat(timer.isTerminated()).isTrue();
        submitted.get(0).run();
        assertThat(task.runs.get()).isEqualTo(1);
    }

    // ---- on the driving thread, with a manual clock ----

    @Test
    void run_onTheDrivingThreadCallsAdvanceClock_returnsFalseAndTheOuterCallCarriesOn() throws Exception {
        ManualClock clock = new ManualClock(Long.MAX_VALUE - 3_000_000L);
        SystemTimer timer = closeLater(SystemTimer.builder("direct").clock(clock).executor(Runnable::run).build());
        List<Boolean> innerResults = new ArrayList<>();
        LatchTask outer = new LatchTask(2);
        outer.body = () -> {
            try {
                clock.advanceMillis(5);
                innerResults.add(timer.advanceClock(0));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        LatchTask later = new LatchTask(6);
        outer.addTo(timer);
        later.addTo(timer);

        clock.advanceMillis(2);
        assertThat(timer.advanceClock(0)).isTrue();

        assertThat(innerResults).containsExactly(false);
        assertThat(outer.runs.get()).isEqualTo(1);
        assertThat(later.runs.get()).as("due once the task moved the clock to 7 ms").isEqualTo(1);
        assertThat(timer.size()).isZero();
        timer.checkInvariants();
    }

    @Test
    void close_fromATaskOnTheDrivingThread_cancelsLaterTicksWhileItsOwnRunFinishes() throws Exception {
        ManualClock clock = new ManualClock();
        SystemTimer timer = closeLater(SystemTimer.builder("direct-close").clock(clock).executor(Runnable::run)
                .build());
        List<LatchTask> sameTick = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            LatchTask task = new LatchTask(3);
            task.body = timer::close;
            task.addTo(timer);
            sameTick.add(task);
        }
        LatchTask later = new LatchTask(10);
        later.addTo(timer);

        clock.advanceMillis(3);
        timer.advanceClock(0);

        // the five were handed over as one run (TimerEngine E8) before the first closed the timer:
        // handed over means run, as for any task already given to the executor
        assertThat(sameTick).allSatisfy(t -> assertThat(t.runs.get()).isEqualTo(1));
        assertThat(sameTick).noneMatch(TimerTask::isCancelled);
        assertThat(later.isCancelled()).isTrue();
        assertThat(later.runs.get()).isZero();
        assertThat(timer.size()).isZero();
        assertThatThrownBy(() -> timer.advanceClock(0)).isInstanceOf(IllegalStateException.class);
    }

    // ---- waiting, waking, closing ----

    /** Runs {@code advanceClock(60 s)} on a new thread; the result lands in {@code result}. */
    private static Thread startDriver(SystemTimer timer, AtomicReference<Object> result) {
        Thread driver = new Thread(() -> {
            try {
                result.set(timer.advanceClock(60_000));
            } catch (Throwable e) {
                result.set(e);
            }
        }, "driver");
        driver.start();
        return driver;
    }

    @ParameterizedTest(name = "a later task already scheduled: {0}")
    @ValueSource(booleans = {false, true})
    void advanceClock_waiting_isWokenByAnEarlierTask(boolean withLaterTask) throws Exception {
        SystemTimer timer = timer("wake", 1, 20);
        if (withLaterTask) {
            new LatchTask(120_000).addTo(timer);
        }
        AtomicReference<Object> result = new AtomicReference<>();
        Thread driver = startDriver(timer, result);
        awaitParked(driver);

        LatchTask early = new LatchTask(1);
        early.addTo(timer);

        driver.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertThat(driver.isAlive()).as("the add woke the driver").isFalse();
        assertThat(result.get()).isEqualTo(true);
        assertThat(early.awaitRun()).isTrue();
        assertThat(timer.size()).isEqualTo(withLaterTask ? 1 : 0);
    }

    @Test
    void advanceClock_waiting_isWokenByClose() throws Exception {
        SystemTimer timer = timer("close-wakes", 1, 20);
        LatchTask pending = new LatchTask(120_000);
        pending.addTo(timer);
        AtomicReference<Object> result = new AtomicReference<>();
        Thread driver = startDriver(timer, result);
        awaitParked(driver);

        timer.close();

        driver.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertThat(driver.isAlive()).isFalse();
        assertThat(result.get()).isEqualTo(false);
        assertThat(pending.isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
    }

    @Test
    void advanceClock_waitingThreadInterrupted_throwsInterruptedException() throws Exception {
        SystemTimer timer = timer("interrupt", 1, 20);
        AtomicReference<Object> result = new AtomicReference<>();
        Thread driver = startDriver(timer, result);
        awaitParked(driver);

        driver.interrupt();

        driver.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertThat(driver.isAlive()).isFalse();
        assertThat(result.get()).isInstanceOf(InterruptedException.class);
        assertThat(timer.advanceClock(0)).as("still usable").isFalse();
    }

    @Test
    void close_pendingTasks_neverRunAndTheExecutorTerminates() throws Exception {
        SystemTimer timer = timer("closing", 1, 20);
        SystemTimerReaper reaper = reaper(timer);
        List<LatchTask> pending = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            LatchTask task = new LatchTask(60_000 + i * 1_000L);
            task.addTo(timer);
            pending.add(task);
        }
        LatchTask ran = new LatchTask(1);
        ran.addTo(timer);
        assertThat(ran.awaitRun()).isTrue();

        reaper.close();

        assertThat(reaper.isAlive()).isFalse();
        awaitTerminated(timer);
        assertThat(timer.size()).isZero();
        assertThat(pending).allSatisfy(t -> {
            assertThat(t.isCancelled()).isTrue();
            assertThat(t.runs.get()).isZero();
        });
        assertThatThrownBy(() -> timer.add(new LatchTask(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closing");
        assertThatThrownBy(() -> timer.advanceClock(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void close_whileATaskRuns_letsItFinishThenTheExecutorTerminates() throws Exception {
        SystemTimer timer = timer("busy", 1, 20);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LatchTask busy = new LatchTask(0);
        AtomicBoolean finished = new AtomicBoolean();
        busy.body = () -> {
            running.countDown();
            try {
                finished.set(release.await(BOUND_SECONDS, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        busy.addTo(timer);
        assertThat(running.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

        timer.close();
        assertThat(timer.isTerminated()).isFalse();
        release.countDown();

        awaitTerminated(timer);
        assertThat(finished).isTrue();
        assertThat(busy.runs.get()).isEqualTo(1);
    }

    @Test
    void close_twice_isIdempotent() {
        SystemTimer timer = timer("twice", 1, 20);
        LatchTask task = new LatchTask(60_000);
        task.addTo(timer);

        timer.close();
        timer.close();

        assertThat(task.isCancelled()).isTrue();
        assertThat(timer.size()).isZero();
        awaitTerminated(timer);
    }

    // ---- arguments ----

    @Test
    void builder_nullName_throwsNpeNamingIt() {
        assertThatNullPointerException().isThrownBy(() -> SystemTimer.builder(null)).withMessage("name");
        assertThatNullPointerException().isThrownBy(() -> new SystemTimer(null)).withMessage("name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "\t"})
    void builder_blankName_throwsIae(String name) {
        assertThatThrownBy(() -> SystemTimer.builder(name)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
    }

    @ParameterizedTest
    @ValueSource(longs = {0L, -1L})
    void builder_badTickMs_throwsIaeNamingTheValue(long tickMs) {
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withTickMs(tickMs))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tickMs")
                .hasMessageEndingWith(": " + tickMs);
        assertThatThrownBy(() -> new SystemTimer("t", tickMs, 20))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tickMs");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 0, 65537})
    void builder_badWheelSize_throwsIaeNamingTheValue(int wheelSize) {
        assertThatThrownBy(() -> TimerSettings.DEFAULT.withWheelSize(wheelSize))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wheelSize")
                .hasMessageEndingWith(": " + wheelSize);
        assertThatThrownBy(() -> new SystemTimer("t", 1, wheelSize))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wheelSize");
    }

    @Test
    void builder_nullCollaborators_throwNpeNamingThem() {
        SystemTimer.Builder builder = SystemTimer.builder("t");

        assertThatNullPointerException().isThrownBy(() -> builder.clock(null)).withMessage("clock");
        assertThatNullPointerException().isThrownBy(() -> builder.executor(null)).withMessage("executor");
        assertThatNullPointerException().isThrownBy(() -> builder.errorHandler(null)).withMessage("errorHandler");
    }

    @Test
    void advanceClock_negativeTimeout_throwsIaeNamingTimeoutMs() {
        SystemTimer timer = timer("negative", 1, 20);

        assertThatThrownBy(() -> timer.advanceClock(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeoutMs")
                .hasMessageEndingWith(": -1");
    }

    @Test
    void add_null_throwsNpeNamingTask() {
        SystemTimer timer = timer("null-task", 1, 20);

        assertThatNullPointerException().isThrownBy(() -> timer.add(null)).withMessage("task");
    }

    @Test
    void name_builtTimer_isTheGivenName() {
        SystemTimer timer = timer("named", 1, 20);

        assertThat(timer.name()).isEqualTo("named");
        assertThat(timer.toString()).contains("named");
    }

    @Test
    void daemonThreadsFactory_severalThreads_namesThemInTurnAsDaemons() {
        ThreadFactory factory = DaemonThreads.factory("pool");

        Thread first = factory.newThread(() -> { });
        Thread second = factory.newThread(() -> { });

        assertThat(first.getName()).isEqualTo("pool");
        assertThat(second.getName()).isEqualTo("pool-2");
        assertThat(first.isDaemon()).isTrue();
        assertThat(second.isDaemon()).isTrue();
        assertThatThrownBy(() -> DaemonThreads.factory(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
