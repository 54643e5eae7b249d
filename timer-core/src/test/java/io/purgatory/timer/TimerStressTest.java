package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Four threads add, cancel and reschedule tasks while another thread drives the timer, then every
 * schedule is accounted for exactly: it ran once or was cancelled once, never both, never neither.
 *
 * <p>To make the count exact, a schedule must be known when it starts. Each task has one owner,
 * the only thread that adds it. A short task is re-added only after its owner saw it unscheduled,
 * which nobody else can undo, so each add starts a schedule; any thread may cancel it. A long
 * task cannot fall due while the threads work, so its owner, its only canceller, knows it is
 * still scheduled when it reschedules it: that add moves the schedule and starts none.
 */
class TimerStressTest {

    private static final int THREADS = 4;
    private static final int SHORT_TASKS_PER_THREAD = 8;
    private static final int LONG_TASKS_PER_THREAD = 16;
    private static final long BOUND_SECONDS = 10;

    @Test
    void systemTimer_fourThreadsAddCancelReschedule_everyScheduleEndsExactlyOnce() throws Exception {
        runSystemTimer(100_000);
    }

    @Tag("slow")
    @Test
    void systemTimer_longRun_everyScheduleEndsExactlyOnce() throws Exception {
        runSystemTimer(10_000_000);
    }

    @Test
    void manualTimer_fourThreadsAddCancelRescheduleWhileADriverAdvances_everyScheduleEndsExactlyOnce()
            throws Exception {
        runManualTimer(100_000);
    }

    @Tag("slow")
    @Test
    void manualTimer_longRun_everyScheduleEndsExactlyOnce() throws Exception {
        runManualTimer(10_000_000);
    }

    private void runSystemTimer(int opsPerThread) throws Exception {
        SystemTimer timer = SystemTimer.builder("stress").settings(TimerSettings.DEFAULT.withTickMs(1).withWheelSize(8))
                .errorHandler((task, error) -> {
                    throw new AssertionError("no stress task throws", error);
                }).build();
        SystemTimerReaper reaper = SystemTimerReaper.start("stress-reaper", timer);
        Workload workload = new Workload(timer, opsPerThread, 20, TimeUnit.MINUTES.toMillis(10));
        try {
            workload.run();

            for (StressTask task : workload.longTasks) {
                if (task.isScheduled()) {
                    assertThat(task.cancel()).isTrue();
                    task.cancels.incrementAndGet();
                }
            }
            awaitCondition("every short task ran", () -> timer.size() == 0);
            assertThat(timer.checkInvariants()).as("tasks linked at quiescence").isZero();
        } finally {
            reaper.close();
        }
        awaitCondition("executor finished", timer::isTerminated);
        assertThat(reaper.isAlive()).isFalse();
        workload.checkAccounting();
    }

    private void runManualTimer(int opsPerThread) throws Exception {
        ManualTimer timer = new ManualTimer(new ManualClock(Long.MAX_VALUE - 1_000_000_000L), 1, 8,
                (task, error) -> {
                    throw new AssertionError("no stress task throws", error);
                });
        long longDelayMs = 1L << 40; // the driver cannot get there while the workers run
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> driverErrors = new CopyOnWriteArrayList<>();
        Thread driver = new Thread(() -> {
            try {
                while (!stop.get()) {
                    timer.advanceClock(1);
                }
            } catch (Throwable e) {
                driverErrors.add(e);
            }
        }, "manual-driver");
        Workload workload = new Workload(timer, opsPerThread, 20, longDelayMs);
        try (timer) {
            driver.start();
            try {
                workload.run();
            } finally {
                stop.set(true);
                driver.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            }
            assertThat(driver.isAlive()).isFalse();
            assertThat(driverErrors).isEmpty();
            timer.checkInvariants();

            timer.advanceClock(longDelayMs + 1_000); // every deadline passes: the long tasks run too

            assertThat(timer.size()).isZero();
            assertThat(timer.checkInvariants()).as("tasks linked at quiescence").isZero();
        }
        workload.checkAccounting();
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for: %s", what).isNegative();
            Thread.onSpinWait();
        }
    }

    /** A task with its own counts: schedules are counted by its owner, runs and cancels by anyone. */
    private static final class StressTask extends TimerTask {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger cancels = new AtomicInteger();
        /** Written by the owner only; read after the owner thread was joined. */
        int schedules;
        int reschedules;

        StressTask(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            runs.incrementAndGet();
        }
    }

    /** The four threads and their tasks. */
    private static final class Workload {
        final Timer timer;
        final int opsPerThread;
        final List<List<StressTask>> shortByOwner = new ArrayList<>();
        final List<List<StressTask>> longByOwner = new ArrayList<>();
        final List<StressTask> shortTasks = new ArrayList<>();
        final List<StressTask> longTasks = new ArrayList<>();

        Workload(Timer timer, int opsPerThread, long maxShortDelayMs, long longDelayMs) {
            this.timer = timer;
            this.opsPerThread = opsPerThread;
            SplittableRandom random = new SplittableRandom(42);
            for (int t = 0; t < THREADS; t++) {
                List<StressTask> shorts = new ArrayList<>();
                for (int i = 0; i < SHORT_TASKS_PER_THREAD; i++) {
                    shorts.add(new StressTask(random.nextLong(-1, maxShortDelayMs + 1)));
                }
                List<StressTask> longs = new ArrayList<>();
                for (int i = 0; i < LONG_TASKS_PER_THREAD; i++) {
                    longs.add(new StressTask(longDelayMs + i));
                }
                shortByOwner.add(shorts);
                longByOwner.add(longs);
                shortTasks.addAll(shorts);
                longTasks.addAll(longs);
            }
        }

        void run() throws Exception {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int owner = t;
                Thread thread = new Thread(() -> {
                    try {
                        start.await(BOUND_SECONDS, TimeUnit.SECONDS);
                        work(owner, new SplittableRandom(1_000 + owner));
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "stress-worker-" + t);
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                assertThat(thread.isAlive()).as("%s finished", thread.getName()).isFalse();
            }
            assertThat(errors).isEmpty();
        }

        private void work(int owner, SplittableRandom random) {
            List<StressTask> shorts = shortByOwner.get(owner);
            List<StressTask> longs = longByOwner.get(owner);
            for (int op = 0; op < opsPerThread; op++) {
                int kind = random.nextInt(100);
                if (kind < 40) {
                    StressTask task = shorts.get(random.nextInt(shorts.size()));
                    if (!task.isScheduled()) { // nobody else can schedule it: this add starts a schedule
                        task.schedules++;
                        timer.add(task);
                    }
                } else if (kind < 65) {
                    StressTask task = shortTasks.get(random.nextInt(shortTasks.size())); // anyone's
                    if (task.cancel()) {
                        task.cancels.incrementAndGet();
                    }
                } else {
                    StressTask task = longs.get(random.nextInt(longs.size()));
                    if (!task.isScheduled()) {
                        task.schedules++;
                        timer.add(task);
                    } else if (kind < 85) {
                        task.reschedules++;
                        timer.add(task); // moves the schedule: it cannot have fallen due
                        assertThat(task.isScheduled()).isTrue();
                    } else {
                        assertThat(task.cancel()).as("only the owner cancels a long task").isTrue();
                        task.cancels.incrementAndGet();
                    }
                }
            }
        }

        void checkAccounting() {
            long schedules = 0;
            long ended = 0;
            long reschedules = 0;
            for (StressTask task : shortTasks) {
                assertThat(task.isScheduled()).isFalse();
                assertThat(task.runs.get() + task.cancels.get())
                        .as("runs %d + cancels %d of a short task with %d schedules",
                                task.runs.get(), task.cancels.get(), task.schedules)
                        .isEqualTo(task.schedules);
                schedules += task.schedules;
                ended += task.runs.get() + task.cancels.get();
            }
            for (StressTask task : longTasks) {
                assertThat(task.isScheduled()).isFalse();
                assertThat(task.runs.get() + task.cancels.get())
                        .as("runs %d + cancels %d of a long task with %d schedules",
                                task.runs.get(), task.cancels.get(), task.schedules)
                        .isEqualTo(task.schedules);
                schedules += task.schedules;
                ended += task.runs.get() + task.cancels.get();
                reschedules += task.reschedules;
            }
            assertThat(ended).isEqualTo(schedules);
            assertThat(schedules).as("the workload did something").isGreaterThan(THREADS * 100L);
            assertThat(reschedules).as("long tasks were rescheduled").isPositive();
            assertThat(shortTasks.stream().mapToInt(t -> t.cancels.get()).sum()).as("short cancels won").isPositive();
            assertThat(shortTasks.stream().mapToInt(t -> t.runs.get()).sum()).as("short tasks ran").isPositive();
        }
    }
}
