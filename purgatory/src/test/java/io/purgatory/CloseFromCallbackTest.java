package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One close rule (CloseOnce): a close called from a callback never waits for a close, or for
 * work on another thread, that may be waiting for it; every wait a close makes is bounded and on
 * a user's thread. The fourth review's defects 1 (a runtime's close and an expiry's callback that
 * closes it, deadlocked) and 6 (two expiry callbacks each closing their purgatory, 10 s each).
 */
class CloseFromCallbackTest {

    private static final long BOUND_SECONDS = 30; // a failure bound, not a measurement

    @Test
    void runtimeClose_fromAnExpiryOnTheDriverWhileAnotherThreadClosesIt_bothReturnAndNothingWaitsItsBound()
            throws Exception {
        int attempts = 1;
        while (!closeFromTheDriverWhileAnotherThreadClosesIt()) { // the scene did not happen: set it again
            attempts++;
            assertThat(attempts).as("attempts to have the expiry run on the driver").isLessThanOrEqualTo(20);
        }
    }

    /**
     * Returns false, having checked nothing, if the expiry ran on this thread instead of the driver:
     * the driver found the 1 ms operation due while the submission still held it, and the holder
     * runs the expiry (the claim protocol), inline here. Its callback would then wait for a close
     * that only this thread starts.
     */
    private static boolean closeFromTheDriverWhileAnotherThreadClosesIt() throws Exception {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("closing-runtime").expirationExecutor(Runnable::run)
                .build(); // expirations run on the driver
        Thread submitter = Thread.currentThread();
        CountDownLatch expiring = new CountDownLatch(1);
        AtomicInteger expired = new AtomicInteger();
        AtomicBoolean ranOnTheSubmitter = new AtomicBoolean();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("on-it")
                .runtime(runtime).build();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            purgatory.tryCompleteElseWatch(new Callback(1, () -> {
                if (Thread.currentThread() == submitter) {
                    ranOnTheSubmitter.set(true);
                    return;
                }
                expired.incrementAndGet();
                expiring.countDown();
                Eventually.await("the other thread's close began", runtime::isClosed);
                runtime.close(); // from the driver, inside the callback the outer close waits for
            }), List.of("k"));
            if (ranOnTheSubmitter.get()) {
                runtime.close();
                return false;
            }
            assertThat(expiring.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

            Thread outside = new Thread(runtime::close, "outside-close");
            outside.start();
            outside.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));

            assertThat(outside.isAlive()).as("the outside close returned: no deadlock with the callback").isFalse();
            assertThat(expired).hasValue(1);
            assertThat(purgatory.isClosed()).isTrue();
            Eventually.await("the driver stopped",
                    () -> TestThreads.findThread("ExpirationReaper-closing-runtime") == null);
            assertThat(warnings(log)).as("no close waited out its bound").isEmpty();
            return true;
        }
    }

    @Test
    void close_fromTwoExpiryCallbacksOnTwoThreadsAtOnce_neitherWaitsForTheOther() throws Exception {
        CyclicBarrier bothExpiring = new CyclicBarrier(2);
        CountDownLatch closed = new CountDownLatch(2);
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.builder("two-closers")
                .build(); // two expiration threads
        try (LogCapture log = new LogCapture("io.purgatory")) {
            Runnable closeFromTheCallback = () -> {
                try {
                    bothExpiring.await(BOUND_SECONDS, TimeUnit.SECONDS); // one on each expiration thread
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                purgatory.close();
                closed.countDown();
            };
            purgatory.tryCompleteElseWatch(new Callback(1, closeFromTheCallback), List.of("a"));
            purgatory.tryCompleteElseWatch(new Callback(5, closeFromTheCallback), List.of("b"));

            assertThat(closed.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("both closes returned").isTrue();
            assertThat(warnings(log)).as("neither close waited out its bound for the other's callback").isEmpty();
            assertThat(purgatory.isClosed()).isTrue();
        }
    }

    private static List<String> warnings(LogCapture log) {
        return log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** An operation that runs {@code onExpiration} as its expiry's callback. */
    private static final class Callback extends DelayedOperation {
        private final Runnable onExpiration;

        Callback(long delayMs, Runnable onExpiration) {
            super(delayMs);
            this.onExpiration = onExpiration;
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
            onExpiration.run();
        }
    }
}
