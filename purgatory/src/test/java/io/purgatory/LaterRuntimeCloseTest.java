package io.purgatory;

import static io.purgatory.TestThreads.BOUND_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.LogCapture;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Promise 7, RuntimeCore P3: a later close of a runtime from a user's thread waits as the first
 * would have, when the first came from a callback and so waited for nothing. Here the first
 * runtime close comes from an onExpiration running on the driver (an inline expiration executor),
 * after that callback closed its own purgatory, so the runtime has no member left when it closes.
 * The first close, had it come from a user's thread, would have joined the driver, which is still
 * running that callback; the later close from a user's thread must wait for it as well.
 */
class LaterRuntimeCloseTest {

    /** Expires after {@code delayMs}, running {@code onExpiration} then. */
    static final class Expiring extends DelayedOperation {
        private final Runnable onExpiration;

        Expiring(long delayMs, Runnable onExpiration) {
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

    @Test
    void laterRuntimeClose_afterAFirstFromADriverCallbackWithNoMemberLeft_waitsForThatCallback() throws Exception {
        int attempts = 1;
        while (!closeLaterThanACallbackOnTheDriver()) { // the scene did not happen: set it again
            attempts++;
            assertThat(attempts).as("attempts to have the expiry run on the driver").isLessThanOrEqualTo(20);
        }
    }

    /**
     * Sets the scene and checks the later close; returns false, having checked nothing, if the
     * expiry ran on the submitting thread instead of the driver. That happens when the driver finds
     * the operation due while the submission still holds it (its try after the watch, a slow thread
     * on a loaded machine): the holder then runs the expiry (the claim protocol), and the callback,
     * waiting for a release that only this thread gives, would hold it for the whole bound.
     */
    private static boolean closeLaterThanACallbackOnTheDriver() throws Exception {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("no-member-left").expirationExecutor(Runnable::run)
                .build();
        DelayedOperationPurgatory<Expiring> purgatory = DelayedOperationPurgatory.<Expiring>builder("closes-itself")
                .runtime(runtime).build();
        Thread submitter = Thread.currentThread();
        CountDownLatch firstCloseReturned = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean callbackEnded = new AtomicBoolean();
        AtomicBoolean ranOnTheSubmitter = new AtomicBoolean();
        AtomicReference<Boolean> endedWhenLaterCloseReturned = new AtomicReference<>();
        Thread closer = new Thread(() -> {
            runtime.close();
            endedWhenLaterCloseReturned.set(callbackEnded.get());
        }, "later-closer");
        try (LogCapture log = new LogCapture("io.purgatory")) {
            purgatory.tryCompleteElseWatch(new Expiring(1, () -> {
                if (Thread.currentThread() == submitter) {
                    ranOnTheSubmitter.set(true);
                    return;
                }
                purgatory.close(); // leaves the runtime: it has no member left
                runtime.close(); // the first runtime close, from a callback on the driver: it waits for nothing
                firstCloseReturned.countDown();
                await(release);
                callbackEnded.set(true);
            }), List.of("k"));
            if (ranOnTheSubmitter.get()) {
                return false;
            }
            assertThat(firstCloseReturned.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

            closer.start();
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (closer.isAlive() && !waitsInAClose(closer) && System.nanoTime() < giveUp) {
                Thread.onSpinWait();
            }
            release.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            assertThat(closer.isAlive()).isFalse();
            assertThat(endedWhenLaterCloseReturned.get()).as("the callback on the driver had ended when the later"
                    + " runtime close from a user's thread returned (as the first, from a user's thread, would have"
                    + " waited: it joins the driver)").isTrue();
            assertThat(log.events()).isEmpty();
            return true;
        } finally {
            release.countDown();
            runtime.close();
        }
    }

    /** Waits for {@code latch} through interrupts (the driver's stop interrupts its thread), then restores them. */
    private static void await(CountDownLatch latch) {
        boolean interrupted = false;
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (latch.getCount() > 0 && System.nanoTime() < giveUp) {
            try {
                latch.await(BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** True iff {@code thread} is parked inside a close (a CloseOnce wait, or the driver's join). */
    private static boolean waitsInAClose(Thread thread) {
        Thread.State state = thread.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().endsWith(".CloseOnce") || frame.getClassName().endsWith(".TimerDriver")) {
                return true;
            }
        }
        return false;
    }
}
