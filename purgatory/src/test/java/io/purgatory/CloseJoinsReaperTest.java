package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Promise 6 of docs/reliability.md: close() "waits at most 10 s for work on other threads". With an
 * expiration executor that runs expirations where they are handed over ({@code Runnable::run}, a
 * documented choice), onExpiration runs on the reaper thread. close() holds the engine's close
 * lock while it closes its own runtime, whose TimerDriver.close() joins the reaper with no bound;
 * an onExpiration that calls close() meanwhile (a second close, from the callback) waits for that
 * lock on the reaper thread: each waits for the other, for ever.
 */
class CloseJoinsReaperTest {

    @Test
    void close_whileAnOnExpirationOnTheReaperThreadAlsoClosesThePurgatory_returnsWithinItsBound() throws Exception {
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("close-joins-reaper")
                .expirationExecutor(Runnable::run).build();
        CountDownLatch inExpiry = new CountDownLatch(1);
        DelayedOperation op = new DelayedOperation(1) {
            @Override
            protected boolean tryComplete() {
                return false;
            }

            @Override
            protected void onComplete() {
            }

            @Override
            protected void onExpiration() { // on the reaper thread
                inExpiry.countDown();
                while (!p.isClosed()) { // until the closer has begun
                    Thread.onSpinWait();
                }
                p.close(); // a second close, from the callback: returns once the first has finished
            }
        };
        p.tryCompleteElseWatch(op, List.of("k"));
        TestThreads.await(inExpiry, "the expiry began on the reaper");

        Thread closer = new Thread(p::close, "closer");
        closer.setDaemon(true); // if it deadlocks, it must not keep the test JVM alive
        closer.start();
        closer.join(TimeUnit.SECONDS.toMillis(30)); // a failure bound: close() promises at most 10 s

        if (closer.isAlive()) {
            fail("close() did not return within 30 s\n" + TestThreads.threadDump());
        }
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
    }
}
