package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The keyed-waits yardstick does the job it stands in for: answers, times out, and leaves the map each way. */
class JdkKeyedWaitsTest {

    private static final Duration LONG = Duration.ofMinutes(10);

    private final JdkKeyedWaits<Long, String> waits = new JdkKeyedWaits<>();

    @Test
    void complete_answersTheWaitsOnItsKey_sharingOneFuture_andLeavesTheMap() {
        CompletableFuture<String> first = waits.await(1L, LONG);
        CompletableFuture<String> second = waits.await(1L, LONG);
        CompletableFuture<String> other = waits.await(2L, LONG);

        assertSame(first, second);
        assertEquals(1, waits.complete(1L, "paid"));
        assertEquals("paid", first.getNow(null));
        assertEquals(0, waits.complete(1L, "again"), "an event answers only the waits already there");
        assertEquals(1, waits.pending());
        assertTrue(!other.isDone());
    }

    @Test
    void cancel_ofTheFuture_leavesTheMap() {
        CompletableFuture<String> wait = waits.await(1L, LONG);

        wait.cancel(false);

        assertEquals(0, waits.pending());
        assertEquals(0, waits.complete(1L, "late"));
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang guard
    void timeout_failsTheWait_andLeavesTheMap() {
        CompletableFuture<String> wait = waits.await(1L, Duration.ofMillis(1));

        CompletionException e = assertThrows(CompletionException.class, wait::join);
        assertTrue(e.getCause() instanceof TimeoutException, e::toString);
        while (waits.pending() != 0) { // the removal is a dependent of the timeout, on the delayer's thread
            Thread.onSpinWait();
        }
    }

    @Test
    void close_pendingWaits_cancelsEveryOne() {
        CompletableFuture<String> a = waits.await(1L, LONG);
        CompletableFuture<String> b = waits.await(2L, LONG);

        waits.close();

        assertTrue(a.isCancelled() && b.isCancelled());
        assertEquals(0, waits.pending());
    }
}
