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
 * Back-pressure of a {@link SystemTimer} ({@link SystemTimer.Builder#backPressure}) with an
 * executor that may run a hand-off on the caller (a {@code ThreadPoolExecutor.CallerRunsPolicy}
 * when its pool is busy): the executor's thread never waits while it runs this timer's tasks,
 * and {@link SystemTimer#lagMs} still counts the runs waiting in the executor. Also: a waiting
 * add that is interrupted returns at once, scheduled, its interrupt kept.
 */
class BackPressureCallerRunsTest {

    private static final long JOIN_SECONDS = 30;

    private final ManualClock clock = new ManualClock();
    /** Hand-offs, run when the test says, or at once on the caller while {@link #callerRuns} is set. */
    private final Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
    private volatile boolean callerRuns;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private SystemTimer timer(Duration bound) {
        SystemTimer timer = SystemTimer.builder("pressed").clock(clock).executor(run -> {
            if (callerRuns) {
                run.run();
            } else {
                handedOff.add(run);
            }
        }).settings(TimerSettings.DEFAULT.withBackPressure(bound)).build();
        toClose.add(timer);
        return timer;
    }

    private void runHandedOff() {
        for (Runnable run = handedOff.poll(); run != null; run = handedOff.poll()) {
            run.run();
        }
    }

    @Test
    void add_fromATaskAfterItsZeroDelayAddRanOnTheSameThread_neverWaits() throws Exception {
        SystemTimer[] timer = {null};
        CountingTask nested = new CountingTask(0);
        CountingTask added = new CountingTask(1);
        CountingTask adding = new CountingTask(5, () -> {
            callerRuns = true; // the pool is busy: a ThreadPoolExecutor.CallerRunsPolicy runs it here
            timer[0].add(nested);
            callerRuns = false;
            timer[0].add(added); // still on the executor's thread, running this timer's task
        });
        timer[0] = timer(Duration.ofMillis(200)); // a failure bound: a wrongful wait ends after it
        timer[0].add(adding);
        CountingTask late = new CountingTask(10);
        timer[0].add(late);
        clock.advanceMillis(5);
        timer[0].advanceClock(0); // the run of "adding" waits in the executor
        clock.advanceMillis(10_000); // the driver has not expired the bucket due at 10: 9,995 ms behind

        runHandedOff(); // on this thread, as the executor's

        assertThat(nested.runs()).isEqualTo(1);
        assertThat(added.isScheduled()).isTrue();
        assertThat(timer[0].backPressureWaits()).as("adds from the executor's thread running this timer's tasks")
                .isZero();
    }

    @Test
    void add_fromATaskWithoutANestedHandOff_neverWaits() throws Exception {
        SystemTimer[] timer = {null};
        CountingTask added = new CountingTask(1);
        CountingTask adding = new CountingTask(5, () -> timer[0].add(added));
        timer[0] = timer(Duration.ofMillis(200));
        timer[0].add(adding);
        timer[0].add(new CountingTask(10));
        clock.advanceMillis(5);
        timer[0].advanceClock(0);
        clock.advanceMillis(10_000);

        runHandedOff();

        assertThat(added.isScheduled()).isTrue();
        assertThat(timer[0].backPressureWaits()).isZero();
    }

    @Test
    void add_interruptedWhileWaiting_returnsScheduledAndKeepsTheInterrupt() throws Exception {
        SystemTimer timer = timer(Duration.ofHours(1)); // only the interrupt can end the wait in time
        timer.add(new CountingTask(5));
        clock.advanceMillis(5 + TimeUnit.HOURS.toMillis(3));
        timer.advanceClock(0); // three hours late; the run waits in the executor
        CountingTask late = new CountingTask(1);
        boolean[] interruptKept = {false};
        Thread adder = new Thread(() -> {
            timer.add(late);
            interruptKept[0] = Thread.currentThread().isInterrupted();
        }, "adder");
        adder.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOIN_SECONDS);
        while (adder.getState() != Thread.State.TIMED_WAITING && adder.isAlive() && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(adder.getState()).as("the add waits").isEqualTo(Thread.State.TIMED_WAITING);

        adder.interrupt();
        adder.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));

        assertThat(adder.isAlive()).as("the interrupted add returned").isFalse();
        assertThat(interruptKept[0]).isTrue();
        assertThat(late.isScheduled()).isTrue();
        assertThat(timer.backPressureWaits()).isEqualTo(1);
        runHandedOff();
    }

    @Test
    void lagMs_aNewerHandOffRanOnItsCallerWhileAnOlderOneWaits_stillCountsTheOlderOne() throws Exception {
        SystemTimer timer = timer(Duration.ofMillis(200)); // a failure bound for the add below
        timer.add(new CountingTask(5));
        clock.advanceMillis(5);
        timer.advanceClock(0); // the run due at 5 waits in the executor
        clock.advanceMillis(10_000);
        assertThat(timer.lagMs()).isEqualTo(10_000);

        callerRuns = true;
        CountingTask now = new CountingTask(0);
        timer.add(now); // due at once: handed off, and run here by the caller-runs policy
        callerRuns = false;

        assertThat(now.runs()).isEqualTo(1);
        assertThat(handedOff).as("the run due at 5 still waits").hasSize(1);
        assertThat(timer.lagMs()).as("expiries due at 5 have not run at 10,005").isGreaterThanOrEqualTo(10_000);
        runHandedOff();
        assertThat(timer.lagMs()).isZero();
    }
}
