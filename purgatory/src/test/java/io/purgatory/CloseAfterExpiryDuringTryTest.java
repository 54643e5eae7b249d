package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Promise 6 of docs/reliability.md: close() returns once the callbacks "of expiries already running
 * on other threads" have run. An expiry that lands while a try of the operation runs on another
 * thread is finished by that thread when its try returns (O5): the operation leaves its lists
 * there, then its callbacks run. A close() that starts after it left its lists neither finds it in
 * its sweep nor counts it among the expiries in flight (the expiry's own thread is done), so it
 * returns while onComplete and onExpiration of that expiry are still to run.
 */
class CloseAfterExpiryDuringTryTest {

    @Test
    void close_anExpiryThatLandedDuringATryIsFinishingOnTheTrysThread_returnsOnlyOnceItsCallbacksHaveRun()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("expiry-in-try")
                .timer(timer).build();
        CountDownLatch inTry = new CountDownLatch(1);
        CountDownLatch releaseTry = new CountDownLatch(1);
        CountDownLatch inOnComplete = new CountDownLatch(1);
        CountDownLatch releaseOnComplete = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean expirationRan = new AtomicBoolean();
        DelayedOperation op = new DelayedOperation(10) {
            @Override
            protected boolean tryComplete() {
                if (armed.compareAndSet(true, false)) {
                    inTry.countDown();
                    TestThreads.awaitInCallback(releaseTry);
                }
                return false;
            }

            @Override
            protected void onComplete() {
                inOnComplete.countDown();
                TestThreads.awaitInCallback(releaseOnComplete);
            }

            @Override
            protected void onExpiration() {
                expirationRan.set(true);
            }
        };
        p.tryCompleteElseWatch(op, List.of("k"));
        armed.set(true);
        Thread checker = new Thread(() -> p.checkAndComplete("k"), "checker");
        checker.setDaemon(true);
        checker.start();
        TestThreads.await(inTry, "the checker's try began");
        timer.advanceClock(20); // the expiry, on this thread: it settles the operation, whose claim the checker holds
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        releaseTry.countDown(); // the checker finishes the expiry: off its lists, then onComplete, onExpiration
        TestThreads.await(inOnComplete, "onComplete of the expiry began on the checker");

        AtomicBoolean expirationRanWhenCloseReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            p.close();
            expirationRanWhenCloseReturned.set(expirationRan.get());
        }, "closer");
        closer.setDaemon(true);
        closer.start();
        ReliabilitySupport.awaitCondition("close() returned, or waits", () -> !closer.isAlive()
                || closer.getState() == Thread.State.WAITING || closer.getState() == Thread.State.TIMED_WAITING);
        releaseOnComplete.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        checker.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(closer.isAlive()).isFalse();
        assertThat(expirationRan).isTrue();
        assertThat(expirationRanWhenCloseReturned).as("onExpiration had run when close() returned").isTrue();
    }
}
