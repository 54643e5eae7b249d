package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerEntry;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults under the expiration reaper: a timer that throws, keeps throwing, blocks, or is closed
 * under it. The reaper survives what it can (logged, with a back-off), stops when its timer is
 * gone, and close() still stops it at once and settles every operation.
 */
@Timeout(60)
class FaultReaperTest {

    @Test
    void reaper_timerThrowsOnce_logsItAndKeepsExpiring() throws Exception {
        try (SystemTimer system = SystemTimer.builder("throws-once").executor(Runnable::run).build();
             LogCapture log = new LogCapture(io.purgatory.timer.TimerDriver.class)) {
            FaultyTimer timer = new FaultyTimer(system, 1);
            try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("throws-once-p")
                    .timer(timer).build()) {
                HookOp op = new HookOp(1);
                p.tryCompleteElseWatch(op, List.of("k"));

                ReliabilitySupport.await(op.settled, "the expiration after the failure");

                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(TestThreads.reaperAlive(p)).isTrue();
                assertThat(log.events()).singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                    assertThat(e.getFormattedMessage()).contains("'ExpirationReaper-throws-once-p'", "retrying");
                });
            }
        }
    }

    @Test
    void reaper_timerKeepsThrowing_backsOffBetweenAttempts() throws Exception {
        try (SystemTimer system = SystemTimer.builder("throws-always").executor(Runnable::run).build();
             LogCapture log = new LogCapture(io.purgatory.timer.TimerDriver.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("throws-always-p")
                     .timer(new FaultyTimer(system, Integer.MAX_VALUE)).build()) {
            p.tryCompleteElseWatch(new HookOp(60_000), List.of("k"));
            Thread reaper = ReliabilitySupport.findThread("ExpirationReaper-throws-always-p");
            assertThat(reaper).isNotNull();

            ReliabilitySupport.awaitCondition("the reaper parked in its back-off",
                    () -> LockSupport.getBlocker(reaper) == p.engine().driver());

            assertThat(log.events()).isNotEmpty().allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR));
        }
    }

    @Test
    void reaper_timerClosedUnderIt_warnsStopsAndTheOperationsAreStillSettled() throws Exception {
        SystemTimer system = SystemTimer.builder("closed-under").executor(Runnable::run).build();
        try (LogCapture log = new LogCapture(io.purgatory.timer.TimerDriver.class)) {
            DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("closed-under-p")
                    .timer(system).build();
            HookOp waiting = new HookOp(60_000);
            p.tryCompleteElseWatch(waiting, List.of("k"));

            system.close(); // behind the purgatory's back: the pending timer entry is cancelled

            ReliabilitySupport.awaitCondition("the reaper stopped", () -> !TestThreads.reaperAlive(p));
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("'ExpirationReaper-closed-under-p'", "closed directly");
            });
            HookOp late = new HookOp(60_000);
            assertThat(p.tryCompleteElseWatch(late, List.of("k"))).as("not completed by the call").isFalse();
            assertThat(late.outcome()).as("settled at once by the close policy: never dropped")
                    .isEqualTo(Outcome.EXPIRED);
            assertThat(late.callbackCounts()).isEqualTo("1,1,0");
            assertThat(waiting.isCompleted()).isFalse();

            p.close();

            assertThat(waiting.outcome()).isEqualTo(Outcome.EXPIRED);
            assertThat(p.numDelayed()).isZero();
            p.engine().checkInvariants();
        }
    }

    @Test
    void close_reaperBlockedInsideItsTimer_interruptsItAndReturns() throws Exception {
        try (SystemTimer system = SystemTimer.builder("blocking").executor(Runnable::run).build()) {
            FaultyTimer timer = new FaultyTimer(system, 0);
            timer.blockUntilInterrupted = true;
            DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("blocking-p")
                    .timer(timer).build();
            HookOp op = new HookOp(60_000);
            p.tryCompleteElseWatch(op, List.of("k"));
            ReliabilitySupport.await(timer.blocked, "the reaper blocked inside advanceClock");

            p.close(); // a reaper that is never interrupted would keep close() waiting forever

            assertThat(TestThreads.reaperAlive(p)).isFalse();
            assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    @Test
    void reaper_withoutATimer_parksBetweenPurgePolicyRuns() {
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("timerless")
                .timerEnabled(false).build()) {
            HookOp op = new HookOp(1);
            p.tryCompleteElseWatch(op, List.of("k"));
            Thread reaper = ReliabilitySupport.findThread("ExpirationReaper-timerless");
            // DEFECT?: RuntimeCore.idle's driver "runs the purge policies", but a driver starts only when
            // something is scheduled (P2), and a purgatory without a timer schedules nothing: no reaper
            // ever starts, so its emptied key lists (kept, or left by a key whose hash changed) are never swept.
            assertThat(reaper).isNotNull();

            ReliabilitySupport.awaitCondition("the reaper parked",
                    () -> reaper.getState() == Thread.State.TIMED_WAITING);

            assertThat(op.isCompleted()).as("without a timer nothing expires").isFalse();
        }
        ReliabilitySupport.assertNoLibraryThreadLeft("timerless");
    }

    /** A timer that throws from its first {@code failures} advances, or blocks in them until interrupted. */
    static final class FaultyTimer implements Timer {
        private final Timer delegate;
        private final AtomicInteger failuresLeft;
        final CountDownLatch blocked = new CountDownLatch(1);
        volatile boolean blockUntilInterrupted;

        FaultyTimer(Timer delegate, int failures) {
            this.delegate = delegate;
            this.failuresLeft = new AtomicInteger(failures);
        }

        @Override
        public void add(TimerEntry task) {
            delegate.add(task);
        }

        @Override
        public boolean advanceClock(long timeoutMs) throws InterruptedException {
            if (blockUntilInterrupted) {
                blocked.countDown();
                new CountDownLatch(1).await();
            }
            if (failuresLeft.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
                throw new ArithmeticException("injected timer failure");
            }
            return delegate.advanceClock(timeoutMs);
        }

        @Override
        public int size() {
            return delegate.size();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
