package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Callbacks that block. A blocked callback holds up only the thread it runs on (and, for
 * tryComplete, its own operation's claim, which no other thread waits for): other operations,
 * other keys, other threads and close() carry on, and the blocked operation's bookkeeping is
 * already done.
 */
@Timeout(60)
class FaultBlockingCallbackTest {

    @Test
    void onExpiration_blocksOneExpirationThread_otherOperationsKeepExpiringOnTheOther() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("slow-expiry").build()) {
            HookOp slow = new HookOp(1);
            slow.expirationHook = () -> {
                blocked.countDown();
                await(release);
            };
            p.tryCompleteElseWatch(slow, List.of("slow"));
            ReliabilitySupport.await(blocked, "the slow onExpiration started");

            List<HookOp> others = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                HookOp op = new HookOp(1 + i % 3);
                others.add(op);
                p.tryCompleteElseWatch(op, List.of("k" + i % 5));
            }
            for (HookOp op : others) {
                ReliabilitySupport.await(op.settled, "an expiration while another thread is blocked");
                assertThat(op.expiredOn).isNotSameAs(slow.expiredOn);
            }
            assertThat(slow.outcome()).as("already settled: its bookkeeping is done").isEqualTo(Outcome.EXPIRED);
            assertThat(p.numDelayed()).isZero();
            assertThat(p.watched()).isZero();

            release.countDown();
            ReliabilitySupport.await(slow.settled, "the slow onExpiration returned");
        }
    }

    @Test
    void onComplete_blocksItsCheckAndCompleteCaller_otherThreadsCompleteExpireAndCloseMeanwhile() throws Exception {
        ManualTimer timer = new ManualTimer();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("slow-complete")
                .timer(timer).reaperEnabled(false).shards(1).build();
        HookOp slow = new HookOp(100);
        slow.completeHook = () -> {
            blocked.countDown();
            await(release);
        };
        HookOp sameKey = new HookOp(100);
        HookOp otherKey = new HookOp(100);
        HookOp expiring = new HookOp(10);
        HookOp leftForClose = new HookOp(100);
        p.tryCompleteElseWatch(slow, List.of("a"));
        p.tryCompleteElseWatch(sameKey, List.of("a"));
        p.tryCompleteElseWatch(otherKey, List.of("b"));
        p.tryCompleteElseWatch(expiring, List.of("a", "b"));
        p.tryCompleteElseWatch(leftForClose, List.of("a"));
        slow.completable = true;
        AtomicReference<Integer> slowCheck = new AtomicReference<>();
        Thread checker = new Thread(() -> slowCheck.set(p.checkAndComplete("a")), "blocked-checker");
        checker.setDaemon(true);
        checker.start();
        ReliabilitySupport.await(blocked, "onComplete blocked in the checker");

        sameKey.completable = true;
        otherKey.completable = true;
        assertThat(p.checkAndComplete("a")).as("the same key, while its walk is blocked elsewhere").isEqualTo(1);
        assertThat(p.checkAndComplete("b")).isEqualTo(1);
        timer.advanceClock(10);
        assertThat(expiring.callbackCounts()).isEqualTo("1,1,0");
        p.close();
        assertThat(leftForClose.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(p.numDelayed()).isZero();
        assertThat(p.watched()).isZero();

        release.countDown();
        checker.join(TimeUnit.SECONDS.toMillis(ReliabilitySupport.BOUND_SECONDS));
        assertThat(checker.isAlive()).isFalse();
        assertThat(slowCheck.get()).isEqualTo(1);
        assertThat(slow.callbackCounts()).isEqualTo("1,0,0");
        p.engine().checkInvariants();
        timer.close();
    }

    @Test
    void tryComplete_blocksHoldingItsClaim_onlyThatOperationWaits() throws Exception {
        ManualTimer timer = new ManualTimer();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("slow-try")
                .timer(timer).reaperEnabled(false).shards(1).build()) {
            HookOp slow = new HookOp(100);
            p.tryCompleteElseWatch(slow, List.of("a"));
            slow.tryHook = () -> {
                blocked.countDown();
                await(release);
            };
            Thread checker = new Thread(() -> p.checkAndComplete("a"), "blocked-in-try");
            checker.setDaemon(true);
            checker.start();
            ReliabilitySupport.await(blocked, "tryComplete blocked");

            HookOp other = new HookOp(5);
            HookOp forced = new HookOp(100);
            p.tryCompleteElseWatch(other, List.of("b"));
            p.tryCompleteElseWatch(forced, List.of("a"));
            assertThat(forced.forceComplete()).as("another operation on the blocked key").isTrue();
            other.completable = true;
            assertThat(p.checkAndComplete("b")).isEqualTo(1);
            HookOp expiring = new HookOp(5);
            p.tryCompleteElseWatch(expiring, List.of("b"));
            timer.advanceClock(5); // the blocked operation is not due: the driver does not wait for it
            assertThat(expiring.callbackCounts()).isEqualTo("1,1,0");
            assertThat(slow.isCompleted()).isFalse();

            release.countDown();
            checker.join(TimeUnit.SECONDS.toMillis(ReliabilitySupport.BOUND_SECONDS));
            assertThat(checker.isAlive()).isFalse();
            slow.tryHook = () -> { };
            timer.advanceClock(100);
            assertThat(slow.callbackCounts()).isEqualTo("1,1,0");
            assertThat(p.numDelayed()).isZero();
            p.engine().checkInvariants();
        } finally {
            timer.close();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(ReliabilitySupport.BOUND_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
