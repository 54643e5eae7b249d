package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import ch.qos.logback.classic.Level;
import io.purgatory.testsupport.LogCapture;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Edges of timer-core that the behaviour suites leave open, found by mutation testing: the
 * task's state word at each step, close racing an add, the driver's wait arithmetic on a clock
 * far from zero, the reaper's shutdown and back-off, and what an error handler's own failure
 * leaves in the log. Real-time waits here are failure bounds only.
 */
@Timeout(60)
class TimerEdgeCaseTest {

    private static final long BOUND_SECONDS = 30;

    // ---- the state word (TimerTask T1, T2) ----

    @Test
    void add_beforeTheDriverRuns_taskIsScheduledAndOnTheInboxWithItsBit() {
        ManualTimer timer = new ManualTimer();
        CountingTask task = new CountingTask(5);

        timer.add(task);

        assertThat(task.state()).isEqualTo(TimerTask.SCHEDULED | TimerTask.IN_INBOX);
        assertThat(timer.checkInvariants()).isZero();
        timer.advanceClock(0);
        assertThat(task.state()).isEqualTo(TimerTask.SCHEDULED);
    }

    @Test
    void add_zeroOrNegativeDelay_leavesTheTaskExpiredAndOffTheInbox() {
        ManualTimer timer = new ManualTimer();
        CountingTask zero = new CountingTask(0);
        CountingTask negative = new CountingTask(-7);

        timer.add(zero);
        timer.add(negative);
        timer.add(zero); // again, after it ran

        assertThat(zero.state()).isEqualTo(TimerTask.EXPIRED);
        assertThat(negative.state()).isEqualTo(TimerTask.EXPIRED);
        assertThat(zero.runs()).isEqualTo(2);
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).isZero();
    }

    @Test
    void close_scheduledTasks_leavesThemCancelledAndOffTheInbox() {
        ManualTimer timer = new ManualTimer();
        CountingTask linked = new CountingTask(5);
        CountingTask onInbox = new CountingTask(7);
        CountingTask linkedAndOnInbox = new CountingTask(9);
        timer.add(linked);
        timer.add(linkedAndOnInbox);
        timer.advanceClock(0);
        timer.add(onInbox);
        timer.add(linkedAndOnInbox); // a reschedule: still linked, and pushed again

        timer.close();

        for (CountingTask task : List.of(linked, onInbox, linkedAndOnInbox)) {
            assertThat(task.state()).as("%s", task).isEqualTo(TimerTask.CANCELLED);
            assertThat(task.slot).as("unlinked").isZero();
        }
        assertThat(timer.size()).isZero();
        assertThat(timer.checkInvariants()).as("no bucket left queued").isZero();
    }

    @Test
    void cancelAll_fromATaskOnTheDrivingThread_returnsHowManyItCancelled() {
        ManualTimer timer = new ManualTimer();
        int[] cancelled = {-1};
        CountingTask closer = new CountingTask(5, () -> {
            timer.close(); // on the driving thread: only marks the engine closed (E6)
            cancelled[0] = timer.engine().underDriverLock(DriverState::cancelAll);
        });
        CountingTask soon = new CountingTask(10);
        CountingTask coarse = new CountingTask(30);
        CountingTask far = new CountingTask(5_000);
        for (CountingTask task : List.of(closer, soon, coarse, far)) {
            timer.add(task);
        }

        assertThat(timer.advanceClock(5)).as("a bucket was processed before the close").isTrue();

        assertThat(cancelled[0]).isEqualTo(3);
        assertThat(List.of(soon, coarse, far)).allSatisfy(t -> {
            assertThat(t.isCancelled()).isTrue();
            assertThat(t.runs()).isZero();
        });
        assertThat(timer.size()).isZero();
    }

    @Test
    void add_timerClosedWhileTheAddRuns_throwsAndLeavesNothingScheduled() {
        AtomicReference<SystemTimer> timerRef = new AtomicReference<>();
        AtomicBoolean closeOnNextRead = new AtomicBoolean();
        Clock closingClock = () -> {
            if (closeOnNextRead.getAndSet(false)) {
                timerRef.get().close(); // close() lands between add's closed check and its schedule
            }
            return 0L;
        };
        SystemTimer timer = SystemTimer.builder("closing").clock(closingClock).executor(Runnable::run).build();
        timerRef.set(timer);
        CountingTask task = new CountingTask(5);
        closeOnNextRead.set(true);

        assertThatThrownBy(() -> timer.add(task)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'closing' is closed");

        assertThat(timer.size()).isZero();
        assertThat(task.isScheduled()).isFalse();
        assertThat(task.isCancelled()).isTrue();
        assertThat(task.runs()).isZero();
    }

    // ---- the driver's wait (TimerEngine E5, SystemTimer.advanceClock) ----

    @Test
    void advanceClock_manualClockNothingDueZeroTimeout_returnsFalseAtOnce() throws InterruptedException {
        try (SystemTimer timer = SystemTimer.builder("zero-wait").clock(new ManualClock()).executor(Runnable::run)
                .build()) {
            timer.add(new CountingTask(5));

            assertThat(timer.advanceClock(0)).isFalse();
        }
    }

    @Test
    void advanceClock_clockFarFromItsOrigin_waitsItsTimeoutAndIsWokenByAnEarlierTask() throws Exception {
        ManualClock clock = new ManualClock();
        try (SystemTimer timer = SystemTimer.builder("offset").clock(clock).executor(Runnable::run).build()) {
            clock.advance(1_000, TimeUnit.SECONDS); // now - timeout > 0: wake-up times are not near zero
            AtomicReference<Object> result = new AtomicReference<>();
            Thread driver = new Thread(() -> {
                try {
                    result.set(timer.advanceClock(120_000));
                } catch (Throwable e) {
                    result.set(e);
                }
            }, "offset-driver");
            driver.setDaemon(true);
            driver.start();
            awaitCondition("driver parked or finished",
                    () -> driver.getState() == Thread.State.TIMED_WAITING || !driver.isAlive());
            assertThat(driver.isAlive()).as("waits for its timeout instead of returning: %s", result.get()).isTrue();

            CountingTask task = new CountingTask(1);
            timer.add(task); // (E5): earlier than the driver's wake-up time, so it unparks the driver
            clock.advanceMillis(1);

            driver.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            assertThat(driver.isAlive()).as("the add woke the driver").isFalse();
            assertThat(result.get()).isEqualTo(true);
            assertThat(task.runs()).isEqualTo(1);
        }
    }

    // ---- SystemTimerReaper ----

    @Test
    void close_reaperBlockedInsideItsTimer_interruptsItAndReturnsWithTheFlagClear() throws Exception {
        BlockingTimer timer = new BlockingTimer(false);
        SystemTimerReaper reaper = SystemTimerReaper.start("blocked", timer);
        TimerEdgeCaseTest.await(timer.entered, "the reaper entered advanceClock");

        reaper.close(); // would wait forever for a thread that is never interrupted

        assertThat(reaper.isAlive()).isFalse();
        assertThat(timer.closes).hasValue(1);
        assertThat(Thread.interrupted()).as("close leaves the caller's interrupt flag alone").isFalse();
    }

    @Test
    void close_callerInterruptedWhileWaiting_stillWaitsForTheThreadAndRestoresTheFlag() throws Exception {
        BlockingTimer timer = new BlockingTimer(false);
        SystemTimerReaper reaper = SystemTimerReaper.start("interrupted-closer", timer);
        TimerEdgeCaseTest.await(timer.entered, "the reaper entered advanceClock");

        Thread.currentThread().interrupt(); // the join inside close is interrupted at once
        reaper.close();

        assertThat(Thread.interrupted()).as("the interrupt is restored (and cleared here)").isTrue();
        assertThat(reaper.isAlive()).isFalse();
        assertThat(timer.closes).hasValue(1);
    }

    @Test
    void reaper_timerKeepsThrowing_backsOffBetweenRetries() throws Exception {
        BlockingTimer timer = new BlockingTimer(true);
        try (LogCapture log = new LogCapture(TimerDriver.class);
             SystemTimerReaper reaper = SystemTimerReaper.start("backoff", timer)) {
            Thread thread = findThread("backoff");
            assertThat(thread).isNotNull();

            awaitCondition("the reaper parked in its back-off",
                    () -> LockSupport.getBlocker(thread) == reaper.driver());

            assertThat(log.events()).isNotEmpty().allSatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("'backoff'", "retrying");
            });
        }
    }

    @Test
    void reaper_wrappedTimerClosedDirectly_warnsAndStops() throws Exception {
        SystemTimer timer = SystemTimer.builder("closed-under").executor(Runnable::run).build();
        try (LogCapture log = new LogCapture(TimerDriver.class);
             SystemTimerReaper reaper = SystemTimerReaper.start("closed-under-reaper", timer)) {

            timer.close();

            awaitCondition("the reaper stopped", () -> !reaper.isAlive());
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("'closed-under-reaper'", "closed directly");
            });
        }
    }

    // ---- failures of the failure path ----

    @Test
    void errorHandler_throws_itsFailureIsLoggedWithTheTaskErrorSuppressed() {
        RuntimeException taskError = new IllegalStateException("task failed");
        RuntimeException handlerError = new IllegalArgumentException("handler failed");
        ManualTimer timer = new ManualTimer(new ManualClock(), 1, 20, (task, error) -> {
            throw handlerError;
        });
        CountingTask failing = new CountingTask(1, () -> {
            throw taskError;
        });
        CountingTask next = new CountingTask(1);
        timer.add(failing);
        timer.add(next);

        try (LogCapture log = new LogCapture(Timer.class)) {
            timer.advanceClock(1);

            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("handler failed");
                assertThat(e.getThrowableProxy().getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s.getMessage()).isEqualTo("task failed"));
            });
        }
        assertThat(next.runs()).isEqualTo(1);
        assertThat(timer.failedTaskCount()).isEqualTo(1);
    }

    // ---- small contracts ----

    @Test
    void advance_nanosThenMillis_returnsTheNewReadingAndShowsItInToString() {
        ManualClock clock = new ManualClock(10);

        assertThat(clock.advance(5, TimeUnit.NANOSECONDS)).isEqualTo(15);
        assertThat(clock.advanceMillis(1)).isEqualTo(1_000_015);
        assertThat(clock.nanoTime()).isEqualTo(1_000_015);
        assertThat(clock).hasToString("ManualClock[1000015ns]");
    }

    @Test
    void toString_tasksAndTimers_nameTheirClassAndState() {
        CountingTask task = new CountingTask(42);
        ManualTimer manual = new ManualTimer(new ManualClock(7));

        assertThat(task.toString()).isEqualTo(CountingTask.class.getName() + "[delayMs=42]");
        assertThat(new TimerTaskList(4)).hasToString("TimerTaskList[tickMs=4, expirationMs=-1]");
        assertThat(manual).hasToString("ManualTimer[ManualClock[7ns], size=0]");
        try (SystemTimer system = new SystemTimer("shown")) {
            assertThat(system).hasToString("SystemTimer[shown, size=0]");
        }
    }

    @Test
    void factory_threadCreatedFromANonDaemonThread_isADaemon() throws Exception {
        ThreadFactory factory = DaemonThreads.factory("from-user-thread");
        AtomicReference<Thread> created = new AtomicReference<>();
        Thread creator = new Thread(() -> created.set(factory.newThread(() -> { })), "non-daemon-creator");
        creator.setDaemon(false);

        creator.start();
        creator.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));

        assertThat(created.get().isDaemon()).isTrue();
        assertThat(created.get().getName()).isEqualTo("from-user-thread");
    }

    // ---- helpers ----

    /** A timer whose advanceClock blocks until interrupted, or always throws. */
    private static final class BlockingTimer implements Timer {
        final CountDownLatch entered = new CountDownLatch(1);
        final AtomicInteger closes = new AtomicInteger();
        private final boolean alwaysThrow;

        BlockingTimer(boolean alwaysThrow) {
            this.alwaysThrow = alwaysThrow;
        }

        @Override
        public void add(TimerTask task) {
        }

        @Override
        public boolean advanceClock(long timeoutMs) throws InterruptedException {
            if (alwaysThrow) {
                throw new ArithmeticException("unexpected");
            }
            entered.countDown();
            new CountDownLatch(1).await(); // until interrupted
            return false;
        }

        @Override
        public int size() {
            return 0;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
            fail(what + " did not happen within " + BOUND_SECONDS + " s");
        }
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + " did not happen within " + BOUND_SECONDS + " s");
            }
            Thread.onSpinWait();
        }
    }

    private static Thread findThread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
