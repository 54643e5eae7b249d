package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Interrupted threads: a caller whose interrupt flag is set, a reaper interrupted from outside,
 * callbacks that interrupt the thread they run on. The purgatory neither throws
 * InterruptedException at its callers nor swallows their flag, and its own threads carry on.
 */
class FaultInterruptTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void everyCall_fromAnInterruptedThread_worksAndKeepsTheInterruptFlag() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("interrupted-caller")
                .timer(timer).reaperEnabled(false).build()) {
            HookOp byKey = new HookOp(100);
            HookOp forced = new HookOp(100);
            HookOp cancelled = new HookOp(100);
            HookOp byKeyCancel = new HookOp(100);
            HookOp expiring = new HookOp(100);

            Thread.currentThread().interrupt();
            for (HookOp op : List.of(byKey, forced, cancelled, byKeyCancel, expiring)) {
                assertThat(p.tryCompleteElseWatch(op, List.of("k", op))).isFalse();
            }
            byKey.completable = true;
            assertThat(p.checkAndComplete(byKey)).isEqualTo(1);
            assertThat(forced.forceComplete()).isTrue();
            assertThat(cancelled.cancel()).isTrue();
            assertThat(p.cancelForKey(byKeyCancel)).containsExactly(byKeyCancel);
            timer.advanceClock(100);

            assertThat(Thread.currentThread().isInterrupted()).as("the caller's flag is kept").isTrue();
            assertThat(byKey.outcome()).isEqualTo(Outcome.COMPLETED);
            assertThat(forced.outcome()).isEqualTo(Outcome.COMPLETED);
            assertThat(cancelled.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(byKeyCancel.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(expiring.callbackCounts()).isEqualTo("1,1,0");
            assertThat(p.numDelayed()).isZero();
            p.engine().checkInvariants();
        } finally {
            timer.close();
        }
    }

    @Test
    void close_fromAnInterruptedThread_stopsTheReaperSettlesEverythingAndKeepsTheFlag() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("interrupted-close").build();
        List<HookOp> ops = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            HookOp op = new HookOp(60_000);
            ops.add(op);
            p.tryCompleteElseWatch(op, List.of("k" + i % 3));
        }
        Thread reaper = ReliabilitySupport.findThread("ExpirationReaper-interrupted-close");
        assertThat(reaper).isNotNull();

        Thread.currentThread().interrupt();
        p.close();

        assertThat(Thread.interrupted()).as("the flag survives close (and is cleared here)").isTrue();
        assertThat(reaper.isAlive()).as("close waited for the reaper despite the interrupt").isFalse();
        assertThat(ops).allSatisfy(op -> {
            assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
            assertThat(op.callbackCounts()).isEqualTo("1,1,0");
        });
        assertThat(p.numDelayed()).isZero();
        ReliabilitySupport.assertNoLibraryThreadLeft("interrupted-close");
    }

    @Test
    void close_fromAThreadNotInterrupted_leavesItsFlagClear() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("plain-close").build();
        p.tryCompleteElseWatch(new HookOp(60_000), List.of("k"));

        p.close();

        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        ReliabilitySupport.assertNoLibraryThreadLeft("plain-close");
    }

    @Test
    void reaperThread_interruptedFromOutside_keepsExpiringOperations() throws Exception {
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("poked").build()) {
            HookOp first = new HookOp(1);
            p.tryCompleteElseWatch(first, List.of("k"));
            ReliabilitySupport.await(first.settled, "the first expiration");
            Thread reaper = ReliabilitySupport.findThread("ExpirationReaper-poked");
            assertThat(reaper).isNotNull();

            for (int i = 0; i < 1_000; i++) {
                reaper.interrupt();
            }
            List<HookOp> later = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                HookOp op = new HookOp(1 + i % 4);
                later.add(op);
                p.tryCompleteElseWatch(op, List.of("k"));
                reaper.interrupt();
            }

            for (HookOp op : later) {
                ReliabilitySupport.await(op.settled, "an expiration after the interrupts");
                assertThat(op.callbackCounts()).isEqualTo("1,1,0");
            }
            assertThat(reaper.isAlive()).isTrue();
        }
    }

    @Test
    void expirationCallbacks_interruptTheirOwnThread_laterExpirationsStillRun() throws Exception {
        List<HookOp> ops = new ArrayList<>();
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("self-interrupting")
                .build()) {
            for (int i = 0; i < 50; i++) {
                HookOp op = new HookOp(1 + i % 5);
                op.expirationHook = () -> Thread.currentThread().interrupt();
                ops.add(op);
                p.tryCompleteElseWatch(op, List.of("k" + i % 4));
            }
            for (HookOp op : ops) {
                ReliabilitySupport.await(op.settled, "expiration");
            }
            assertThat(p.stats().expired()).isEqualTo(50);
        }
        ReliabilitySupport.assertNoLibraryThreadLeft("self-interrupting");
    }

    @Test
    void expirationCallbacks_interruptTheReaperThreadTheyRunOn_theReaperCarriesOn() throws Exception {
        List<HookOp> ops = new ArrayList<>();
        AtomicLong nanos = new AtomicLong(); // moved once every submission returned: none is due while its
        // submission holds its claim, which would finish the expiry on this thread (OperationState O5)
        try (LogCapture rejections = new LogCapture(io.purgatory.timer.Timer.class);
             DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("reaper-interrupting")
                .clock(nanos::get)
                .expirationExecutor(command -> {
                    throw new RejectedExecutionException("run it on the reaper");
                }).build()) {
            for (int i = 0; i < 30; i++) {
                HookOp op = new HookOp(1 + i % 5);
                op.expirationHook = () -> Thread.currentThread().interrupt();
                ops.add(op);
                p.tryCompleteElseWatch(op, List.of("k"));
            }
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(10));
            for (HookOp op : ops) {
                ReliabilitySupport.await(op.settled, "expiration on the reaper");
                assertThat(op.expiredOn.getName()).isEqualTo("ExpirationReaper-reaper-interrupting");
            }
            assertThat(TestThreads.reaperAlive(p)).isTrue();
            assertThat(rejections.events()).hasSize(30);
        }
    }
}
