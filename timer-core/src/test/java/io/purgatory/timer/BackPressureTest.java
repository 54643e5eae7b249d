package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Back-pressure of a {@link SystemTimer} (BackPressure G1-G2), on a manual clock with an executor
 * the test runs by hand: when adds wait, for what, and who never waits. The bounds are far above
 * any real-time delay of the test, so that the waits end on what the test does, not on a timer.
 */
class BackPressureTest {

    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final long JOIN_SECONDS = 30;

    private final ManualClock clock = new ManualClock();
    /** Hand-offs, run when the test says. */
    private final Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private SystemTimer timer(Duration bound) {
        SystemTimer timer = SystemTimer.builder("pressed").clock(clock).executor(handedOff::add)
                .settings(TimerSettings.DEFAULT.withBackPressure(bound))
                .build();
        toClose.add(timer);
        return timer;
    }

    private void runHandedOff() {
        for (Runnable run = handedOff.poll(); run != null; run = handedOff.poll()) {
            run.run();
        }
    }

    /** Adds a task on a new thread; the thread ends when the add returns. */
    private static Thread addOnAnotherThread(Timer timer, TimerTask task) {
        Thread thread = new Thread(() -> timer.add(task), "adder");
        thread.start();
        return thread;
    }

    /** Waits (bounded) until {@code thread} parks: the add is waiting. */
    private static void awaitParked(Thread thread) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOIN_SECONDS);
        while (thread.getState() != Thread.State.TIMED_WAITING && thread.isAlive() && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(thread.getState()).as("the add waits").isEqualTo(Thread.State.TIMED_WAITING);
    }

    @Test
    void lagMs_driverBehindThenExecutorBehindThenCaughtUp_isEachInTurn() throws Exception {
        SystemTimer timer = timer(BOUND);
        timer.add(new CountingTask(5));
        timer.advanceClock(0); // queues the bucket due at 5
        assertThat(timer.lagMs()).isZero();

        clock.advanceMillis(125);
        assertThat(timer.lagMs()).as("the driver's: a bucket due at 5 not expired").isEqualTo(120);

        timer.advanceClock(0); // expires it; its run waits in the executor
        assertThat(timer.lagMs()).as("the executor's: a run due at 5 not started").isEqualTo(120);
        clock.advanceMillis(10);
        assertThat(timer.lagMs()).as("grows while the executor stalls").isEqualTo(130);

        runHandedOff();
        assertThat(timer.lagMs()).as("caught up").isZero();
    }

    @Test
    void add_expiriesMoreThanTheBoundLate_waitsUntilTheyCatchUp() throws Exception {
        SystemTimer timer = timer(BOUND);
        List<CountingTask> due = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            CountingTask task = new CountingTask(5);
            timer.add(task);
            due.add(task);
        }
        clock.advanceMillis(5 + BOUND.toMillis() + 1_000);
        timer.advanceClock(0); // expired 61 s late; the runs wait in the executor
        CountingTask late = new CountingTask(1);

        Thread adder = addOnAnotherThread(timer, late);
        awaitParked(adder);
        assertThat(late.isScheduled()).isFalse();

        runHandedOff();
        adder.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));

        assertThat(adder.isAlive()).isFalse();
        assertThat(late.isScheduled()).isTrue();
        assertThat(due).allSatisfy(task -> assertThat(task.runs()).isEqualTo(1));
        assertThat(timer.backPressureWaits()).isEqualTo(1);
        assertThat(timer.backPressureWaited()).isPositive();
    }

    @Test
    void add_lagWithinTheBound_neverWaits() throws Exception {
        SystemTimer timer = timer(BOUND);
        timer.add(new CountingTask(5));
        clock.advanceMillis(5 + BOUND.toMillis());
        timer.advanceClock(0); // exactly the bound late

        timer.add(new CountingTask(1));

        assertThat(timer.lagMs()).isEqualTo(BOUND.toMillis());
        assertThat(timer.backPressureWaits()).isZero();
    }

    @Test
    void add_fromATaskOfThisTimer_neverWaits() throws Exception {
        CountingTask added = new CountingTask(1);
        SystemTimer[] timer = {null};
        CountingTask adding = new CountingTask(5, () -> timer[0].add(added));
        timer[0] = timer(BOUND);
        timer[0].add(adding); // first in the first run, while the other runs wait
        for (int i = 0; i < 100; i++) {
            timer[0].add(new CountingTask(5));
        }
        clock.advanceMillis(5 + 2 * BOUND.toMillis());
        timer[0].advanceClock(0);
        assertThat(timer[0].lagMs()).isGreaterThan(BOUND.toMillis());

        runHandedOff(); // on this thread, as the executor's: its add must not wait for itself

        assertThat(added.isScheduled()).isTrue();
        assertThat(timer[0].backPressureWaits()).isZero();
    }

    @Test
    void add_onTheDrivingThread_neverWaits() throws Exception {
        CountingTask added = new CountingTask(1);
        SystemTimer[] timer = {null};
        CountingTask adding = new CountingTask(5, () -> timer[0].add(added));
        timer[0] = SystemTimer.builder("inline").clock(clock).executor(Runnable::run)
                .settings(TimerSettings.DEFAULT.withBackPressure(BOUND)).build();
        toClose.add(timer[0]);
        timer[0].add(new CountingTask(5));
        timer[0].add(adding);
        clock.advanceMillis(5 + 2 * BOUND.toMillis());

        timer[0].advanceClock(0); // runs both on the driving thread, 120 s late

        assertThat(added.isScheduled()).isTrue();
        assertThat(timer[0].backPressureWaits()).isZero();
    }

    @Test
    void add_interruptedThread_doesNotWaitAndKeepsItsInterrupt() throws Exception {
        SystemTimer timer = timer(BOUND);
        timer.add(new CountingTask(5));
        clock.advanceMillis(5 + 2 * BOUND.toMillis());
        advanceOnAnotherThread(timer); // this thread adds; the driver's never waits
        CountingTask late = new CountingTask(1);

        Thread.currentThread().interrupt();
        try {
            timer.add(late);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }

        assertThat(late.isScheduled()).isTrue();
        assertThat(timer.backPressureWaits()).isEqualTo(1);
    }

    @Test
    void add_stuckExecutor_waitsAtMostTheBoundPerAdd() throws Exception {
        SystemTimer timer = timer(Duration.ofMillis(1));
        timer.add(new CountingTask(5));
        clock.advanceMillis(1_000);
        advanceOnAnotherThread(timer); // the run is never executed: the lag stays

        for (int i = 0; i < 3; i++) {
            timer.add(new CountingTask(1)); // each returns after its bounded wait
        }

        assertThat(timer.size()).isEqualTo(3);
        assertThat(timer.backPressureWaits()).isEqualTo(3);
        assertThat(timer.backPressureWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(3));
    }

    @Test
    void add_timerClosedWhileWaiting_returnsAndThrowsClosed() throws Exception {
        SystemTimer timer = timer(BOUND);
        timer.add(new CountingTask(5));
        clock.advanceMillis(5 + 2 * BOUND.toMillis());
        timer.advanceClock(0);
        Throwable[] thrown = {null};
        Thread adder = new Thread(() -> {
            try {
                timer.add(new CountingTask(1));
            } catch (IllegalStateException closed) {
                thrown[0] = closed;
            }
        }, "adder");
        adder.start();
        awaitParked(adder);

        timer.close();
        adder.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));

        assertThat(adder.isAlive()).isFalse();
        assertThat(thrown[0]).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void settings_zeroBound_isNoBackPressure() throws Exception {
        SystemTimer timer = SystemTimer.builder("zero").clock(clock).executor(handedOff::add)
                .settings(TimerSettings.DEFAULT.withBackPressure(Duration.ZERO)).build();
        toClose.add(timer);
        timer.add(new CountingTask(5));
        timer.advanceClock(0);
        clock.advanceMillis(100_000);

        timer.add(new CountingTask(5));

        assertThat(timer.backPressureWaits()).isZero();
    }

    @Test
    void add_withoutBackPressure_neverWaitsAndLagIsTheDriversOnly() throws Exception {
        SystemTimer timer = SystemTimer.builder("free").clock(clock).executor(handedOff::add).build();
        toClose.add(timer);
        timer.add(new CountingTask(5));
        timer.advanceClock(0);
        clock.advanceMillis(100_000); // the driver has not expired the bucket due at 5

        timer.add(new CountingTask(1));

        assertThat(timer.lagMs()).isEqualTo(100_000 - 5);
        assertThat(timer.backPressureWaits()).isZero();
        assertThat(timer.backPressureWaited()).isZero();
    }

    /** Advances {@code timer} once on a thread of its own, the driver's: this thread, which adds, never drove it. */
    private static void advanceOnAnotherThread(SystemTimer timer) throws InterruptedException {
        Throwable[] failed = {null};
        Thread driver = new Thread(() -> {
            try {
                timer.advanceClock(0);
            } catch (Throwable t) {
                failed[0] = t;
            }
        }, "driver");
        driver.start();
        driver.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(driver.isAlive()).as("the driver returned").isFalse();
        assertThat(failed[0]).isNull();
    }
}
