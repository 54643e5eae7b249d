package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.DaemonThreads;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A full, rejecting or misbehaving expiration executor: every expiration still happens, exactly
 * once (a rejected one runs on the reaper thread instead), and every rejection is reported to the
 * timer's error handler (logged by default), counted by the purgatory's timer and shown in the
 * purgatory's stats and meters.
 */
class FaultExecutorTest {

    /** A refusal proper, and an executor that fails some other way: both are a refused hand-off. */
    static Stream<RuntimeException> handOffFailures() {
        return Stream.of(new RejectedExecutionException("saturated"), new IllegalStateException("broken executor"));
    }

    @ParameterizedTest
    @MethodSource("handOffFailures")
    void expirationExecutor_throwsOnEveryHandOff_operationsExpireOnTheReaperAndEachRefusalIsReportedAndCounted(
            RuntimeException failure) throws Exception {
        Executor refusing = command -> {
            throw failure;
        };
        int n = 50;
        RecordingMetrics metrics = new RecordingMetrics();
        try (LogCapture timerLog = new LogCapture(Timer.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("rejecting")
                     .expirationExecutor(refusing).metrics(metrics).build()) {
            List<HookOp> ops = submitExpiring(p, n);

            awaitSettled(ops);

            assertThat(ops).allSatisfy(op -> {
                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(op.callbackCounts()).isEqualTo("1,1,0");
                // on the reaper, or (O5) on the submitting thread if the expiry landed while its submission
                // still held the claim (a loaded machine can pause it past the 1-3 ms delay)
                assertThat(op.expiredOn.getName()).isIn("ExpirationReaper-rejecting", Thread.currentThread().getName());
            });
            assertThat(((SystemTimer) EngineInternals.timer(p.engine().runtime())).failedTaskCount())
                    .as("refusals counted").isEqualTo(n);
            assertThat(timerLog.events()).hasSize(n).allSatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getThrowableProxy().getClassName()).isEqualTo(failure.getClass().getName());
            });
            assertThat(p.stats().expired()).isEqualTo(n);
            assertThat(p.stats().expirationsRefused()).isEqualTo(n);
            assertThat(metrics.of("rejecting").source.expirationsRefused()).isEqualTo(n);
            assertThat(p.stats().callbackErrors()).isZero();
        }
        ReliabilitySupport.assertNoLibraryThreadLeft("rejecting");
    }

    @Test
    void expirationExecutor_boundedQueueFull_overflowExpiresOnTheReaperAndNothingIsLost() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1),
                DaemonThreads.factory("user-pool"), new ThreadPoolExecutor.AbortPolicy());
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int n = 20;
        try (LogCapture timerLog = new LogCapture(Timer.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("full-pool")
                     .expirationExecutor(pool).build()) {
            HookOp blocker = new HookOp(1);
            blocker.expirationHook = () -> {
                blocking.countDown();
                awaitUninterruptibly(release); // the pool's only thread is busy: its queue (1) fills next
            };
            p.tryCompleteElseWatch(blocker, List.of("blocker"));
            ReliabilitySupport.await(blocking, "the pool's thread blocked");

            // 2 ms apart, so each expires in a tick of its own: a hand-off each (TimerEngine E8)
            List<HookOp> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                HookOp op = new HookOp(1 + 2L * i);
                ops.add(op);
                assertThat(p.tryCompleteElseWatch(op, List.of("k" + i % 7))).isFalse();
            }
            ReliabilitySupport.awaitCondition("all but the queued expiration ran",
                    () -> ops.stream().filter(op -> op.isCompleted()).count() == n - 1);
            release.countDown();
            awaitSettled(ops);
            ReliabilitySupport.await(blocker.settled, "the blocked expiration");

            long onReaper = ops.stream()
                    .filter(op -> op.expiredOn.getName().equals("ExpirationReaper-full-pool")).count();
            assertThat(onReaper).isEqualTo(n - 1);
            assertThat(ops).allSatisfy(op -> assertThat(op.callbackCounts()).isEqualTo("1,1,0"));
            assertThat(((SystemTimer) EngineInternals.timer(p.engine().runtime())).failedTaskCount()).isEqualTo(n - 1);
            assertThat(timerLog.events()).hasSize(n - 1);
            assertThat(p.stats().expired()).isEqualTo(n + 1);
            assertThat(p.stats().expirationsRefused()).isEqualTo(n - 1);
        } finally {
            pool.shutdown();
        }
        assertThat(pool.awaitTermination(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void expirationExecutor_shutDownByItsOwnerWhileInUse_laterExpirationsRunOnTheReaper() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(), DaemonThreads.factory("owned-elsewhere"));
        try (LogCapture timerLog = new LogCapture(Timer.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("pool-shut")
                     .expirationExecutor(pool).build()) {
            List<HookOp> before = submitExpiring(p, 5);
            awaitSettled(before);
            assertThat(before).allSatisfy(op -> assertThat(op.expiredOn.getName()).isEqualTo("owned-elsewhere"));

            pool.shutdown();
            List<HookOp> after = submitExpiring(p, 5);
            awaitSettled(after);

            assertThat(after).allSatisfy(op -> {
                assertThat(op.callbackCounts()).isEqualTo("1,1,0");
                // on the reaper, or (O5) on the submitting thread if the expiry landed while its submission
                // still held the claim (a loaded machine can pause it past the 1-3 ms delay): never lost
                assertThat(op.expiredOn.getName()).isIn("ExpirationReaper-pool-shut", Thread.currentThread().getName());
            });
            assertThat(((SystemTimer) EngineInternals.timer(p.engine().runtime())).failedTaskCount()).isEqualTo(5);
            assertThat(p.stats().expirationsRefused()).isEqualTo(5);
            assertThat(timerLog.events()).hasSize(5);
        }
    }

    @Test
    void expirationExecutor_runsTheTaskThenThrows_eachOperationStillExpiresExactlyOnce() throws Exception {
        Executor runsThenRefuses = command -> {
            command.run();
            throw new RejectedExecutionException("ran it, then refused it"); // the timer must not run it again
        };
        int n = 20;
        try (LogCapture timerLog = new LogCapture(Timer.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("runs-twice")
                     .expirationExecutor(runsThenRefuses).build()) {
            List<HookOp> ops = submitExpiring(p, n);

            awaitSettled(ops);

            assertThat(ops).allSatisfy(op -> assertThat(op.callbackCounts()).as("exactly once").isEqualTo("1,1,0"));
            assertThat(p.stats().expired()).isEqualTo(n);
            assertThat(((SystemTimer) EngineInternals.timer(p.engine().runtime())).failedTaskCount())
                    .as("the hand-off ran: nothing refused")
                    .isZero();
            assertThat(p.stats().expirationsRefused()).isZero();
            assertThat(timerLog.events()).isEmpty();
        }
    }

    @Test
    void expirationsRefused_ofAPurgatoryGivenATimer_isZeroAsPurgatoryStatsSays() throws Exception {
        Executor refusing = command -> {
            throw new RejectedExecutionException("expected by the test: full");
        };
        try (LogCapture timerLog = new LogCapture(Timer.class);
             SystemTimer given = SystemTimer.builder("given-refusing").executor(refusing).build();
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("given-timer")
                     .timer(given).build()) {
            List<HookOp> ops = submitExpiring(p, 3);

            awaitSettled(ops);

            assertThat(given.failedTaskCount()).as("counted by the timer its owner gave").isEqualTo(3);
            assertThat(p.stats().expirationsRefused()).isZero();
            assertThat(timerLog.events()).hasSize(3);
        }
    }

    /**
     * Issue 17, defect 1, at the purgatory's level: an Error from the expiration executor (a
     * ThreadPoolExecutor that cannot start a worker throws OutOfMemoryError) loses no expiration.
     * Before the fix, 1 to 7 of 300 operations never expired and nothing was counted.
     */
    @Test
    void expirationExecutor_throwsAnErrorOnce_everyOperationStillExpiresOnceAndTheRefusalIsCounted() {
        io.purgatory.timer.ManualClock clock = new io.purgatory.timer.ManualClock();
        boolean[] thrown = {false};
        Executor failsOnce = command -> {
            if (!thrown[0]) {
                thrown[0] = true;
                throw new OutOfMemoryError("unable to create native thread");
            }
            command.run();
        };
        int n = 300;
        try (LogCapture timerLog = new LogCapture(Timer.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("error-once")
                     .clock(ReliabilitySupport.readingOf(clock)).expirationExecutor(failsOnce).reaperEnabled(false)
                     .build()) {
            List<HookOp> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                HookOp op = new HookOp(10);
                p.tryCompleteElseWatch(op, List.of("k" + (i % 7)));
                ops.add(op);
            }

            clock.advance(20, TimeUnit.MILLISECONDS);
            try {
                EngineInternals.timer(p.engine().runtime()).advanceClock(0);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }

            assertThat(ops).allSatisfy(op -> assertThat(op.callbackCounts()).isEqualTo("1,1,0"));
            assertThat(p.numDelayed()).isZero();
            assertThat(EngineInternals.timer(p.engine().runtime()).size()).isZero();
            assertThat(p.stats().expired()).isEqualTo(n);
            assertThat(p.stats().expirationsRefused()).as("each task of the refused hand-off").isPositive();
            assertThat(timerLog.events()).hasSize((int) p.stats().expirationsRefused());
            p.engine().checkInvariants();
        }
    }

    private static List<HookOp> submitExpiring(DelayedOperationPurgatory<HookOp> p, int n) {
        List<HookOp> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HookOp op = new HookOp(1 + i % 3);
            ops.add(op);
            assertThat(p.tryCompleteElseWatch(op, List.of("k" + i % 7))).isFalse();
        }
        return ops;
    }

    private static void awaitSettled(List<HookOp> ops) throws InterruptedException {
        for (HookOp op : ops) {
            ReliabilitySupport.await(op.settled, "expiration of " + op);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (latch.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS)) {
                        return;
                    }
                    throw new AssertionError("never released");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
