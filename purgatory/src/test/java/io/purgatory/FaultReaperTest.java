package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.SystemTimer;
import java.util.List;
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
    void reaper_withoutATimer_parksBetweenPurgePolicyRuns() {
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("timerless")
                .timerEnabled(false).build()) {
            HookOp op = new HookOp(1);
            p.tryCompleteElseWatch(op, List.of("k"));
            Thread reaper = ReliabilitySupport.findThread("ExpirationReaper-timerless");
            assertThat(reaper).isNotNull();

            ReliabilitySupport.awaitCondition("the reaper parked",
                    () -> reaper.getState() == Thread.State.TIMED_WAITING);

            assertThat(op.isCompleted()).as("without a timer nothing expires").isFalse();
        }
        ReliabilitySupport.assertNoLibraryThreadLeft("timerless");
    }

}
