package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which threads a {@link SystemTimer}'s back-pressure exempts ({@link SystemTimer.Builder#backPressure}:
 * "the timer's own threads (the one driving it, and the executor's while it runs this timer's
 * tasks) never wait"), when more than one thread drives a timer, and when one thread runs the
 * hand-offs of two timers, one inside the other. Each timer runs on a manual clock a minute behind
 * its deadlines; a wrongful wait ends after the bound and is counted.
 */
class BackPressureExemptThreadsTest {

    private static final long JOIN_SECONDS = 30;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** A back-pressured timer on {@code clock} whose hand-offs wait in {@code handedOff} until run. */
    private SystemTimer timer(String name, ManualClock clock, Queue<Runnable> handedOff) {
        SystemTimer timer = SystemTimer.builder(name).clock(clock).executor(handedOff::add)
                .settings(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(100)))
                        .build(); // a failure bound: a wrongful wait ends after it
        toClose.add(timer);
        return timer;
    }

    /** Makes {@code timer} run a minute late: a hand-off due at 5 waits in its executor. */
    private static void makeLate(SystemTimer timer, ManualClock clock) throws Exception {
        timer.add(new CountingTask(5));
        clock.advanceMillis(5);
        onAnotherThread(() -> timer.advanceClock(0)); // driven by a thread that is gone
        clock.advanceMillis(60_000);
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void onAnotherThread(Step step) throws Exception {
        Throwable[] failure = {null};
        Thread thread = new Thread(() -> {
            try {
                step.run();
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS));
        assertThat(thread.isAlive()).isFalse();
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
    }

    @Test
    void add_fromTheReapersActionAfterAnotherThreadAdvancedOnce_neverWaits() throws Exception {
        ManualClock clock = new ManualClock();
        SystemTimer timer = timer("pressed", clock, new ConcurrentLinkedQueue<>());
        makeLate(timer, clock);
        CountDownLatch inAction = new CountDownLatch(1);
        CountDownLatch advancedElsewhere = new CountDownLatch(1);
        CountDownLatch added = new CountDownLatch(1);
        SystemTimerReaper reaper = SystemTimerReaper.start("pressed-reaper", timer, () -> {
            if (added.getCount() > 0) {
                inAction.countDown();
                try {
                    advancedElsewhere.await(JOIN_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                timer.add(new CountingTask(1_000_000)); // the reaper's own work, between two advances
                added.countDown();
            }
        });
        toClose.add(0, reaper);
        assertThat(inAction.await(JOIN_SECONDS, TimeUnit.SECONDS)).isTrue();

        timer.advanceClock(0); // a health check, or a second reaper: one advance from this thread
        advancedElsewhere.countDown();

        assertThat(added.await(JOIN_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(timer.backPressureWaits()).as("adds from the reaper's thread, which drives the timer").isZero();
    }

    @Test
    void add_fromAnotherTimersHandOffRunInsideThisTimersHandOff_neverWaits() throws Exception {
        ManualClock clockA = new ManualClock();
        Queue<Runnable> handedOffA = new ConcurrentLinkedQueue<>();
        SystemTimer a = timer("a", clockA, handedOffA);
        ManualClock clockB = new ManualClock();
        Queue<Runnable> handedOffB = new ConcurrentLinkedQueue<>(); // a shared pool whose threads help each other
        SystemTimer b = timer("b", clockB, handedOffB);
        CountingTask addedToA = new CountingTask(1_000_000);
        b.add(new CountingTask(1, () -> a.add(addedToA)));
        clockB.advanceMillis(1);
        onAnotherThread(() -> b.advanceClock(0)); // b's hand-off waits
        CountingTask helping = new CountingTask(5, () -> { // a task of a that helps its pool: runs b's hand-off
            for (Runnable run = handedOffB.poll(); run != null; run = handedOffB.poll()) {
                run.run();
            }
        });
        a.add(helping);
        a.add(new CountingTask(10)); // its bucket, due at 10, is left to the driver: a minute late
        makeLate(a, clockA); // a's hand-off of "helping" waits too

        for (Runnable run = handedOffA.poll(); run != null; run = handedOffA.poll()) {
            run.run(); // on this thread, as a's executor's
        }

        assertThat(helping.runs()).isOne();
        assertThat(addedToA.isScheduled()).isTrue();
        assertThat(a.backPressureWaits()).as("an add to a from a thread running a's hand-off").isZero();
    }
}
