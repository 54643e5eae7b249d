package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Promise 6 of docs/reliability.md: close() returns once the callbacks of what it settled have run,
 * and KeyedWaits.close() "returns once the futures it answered are done". Called from inside a
 * callback (or from a dependent stage of a wait's future, which runs inside one), close's sweep
 * settles the other operations on the same thread, where Callbacks (Q1) queues their callbacks
 * behind the running one: close returns with none of them run, so a caller that then joins one of
 * the futures it answered blocks for ever.
 */
class CloseFromCallbackTest {

    @Test
    void keyedWaitsClose_fromADependentStageOfAnotherWait_returnsWithTheFuturesItAnsweredDone() {
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("close-in-stage").timer(timer).build();
        CompletableFuture<String> first = waits.await("a", Duration.ofSeconds(10));
        CompletableFuture<String> second = waits.await("b", Duration.ofSeconds(10));
        AtomicBoolean secondDoneWhenCloseReturned = new AtomicBoolean();
        AtomicBoolean closeReturned = new AtomicBoolean();
        CompletableFuture<Void> stage = first.thenRun(() -> { // runs inside first's onComplete
            waits.close();
            closeReturned.set(true);
            secondDoneWhenCloseReturned.set(second.isDone()); // a join() here would block for ever
        });

        waits.complete("a", "paid");

        assertThat(stage).isDone();
        assertThat(closeReturned).isTrue();
        assertThat(second).isDone(); // once the callback returned, the queued ones ran
        assertThat(secondDoneWhenCloseReturned).as("the future close() answered was done when it returned")
                .isTrue();
    }

    @Test
    void close_fromOnCompleteOfAnotherOperation_returnsOnceTheCallbacksOfWhatItSettledHaveRun() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("close-in-callback")
                .timer(timer).build();
        MockOperation other = new MockOperation(60_000);
        p.tryCompleteElseWatch(other, List.of("other"));
        AtomicInteger otherExpirationsWhenCloseReturned = new AtomicInteger(-1);
        DelayedOperation closing = closingOperation(p, other, otherExpirationsWhenCloseReturned);
        p.tryCompleteElseWatch(closing, List.of("closing"));

        closing.forceComplete(); // its onComplete closes the purgatory, which expires `other`

        assertThat(other.onExpirationCalls).as("close() answered it, eventually").hasValue(1);
        assertThat(otherExpirationsWhenCloseReturned).as("onExpiration of `other` had run when close() returned")
                .hasValue(1);
    }

    /** An operation whose onComplete closes {@code p} and notes how often {@code other} had expired then. */
    private static DelayedOperation closingOperation(DelayedOperationPurgatory<DelayedOperation> p,
                                                     MockOperation other, AtomicInteger expirationsSeen) {
        return new DelayedOperation(60_000) {
            @Override
            protected boolean tryComplete() {
                return false;
            }

            @Override
            protected void onComplete() {
                p.close();
                expirationsSeen.set(other.onExpirationCalls.get());
            }

            @Override
            protected void onExpiration() {
            }
        };
    }
}
