package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ladder's timed floor does what a purgatory's timer does to a request: cancelled when forced, fired when due. */
class TimedFloorTest {

    private final TimedFloor floor = new TimedFloor("timed-floor-test");
    private final List<BenchKey> keys = List.of(BenchKey.range(3));

    @AfterEach
    void close() {
        floor.close();
    }

    @Test
    void forceComplete_ofAScheduledRequest_completesOnceAndTakesItOffTheTimer() {
        Body body = new Body();
        Completable op = floor.newOperation(body, 60_000);
        assertFalse(floor.tryCompleteElseWatch(op, keys));
        assertEquals(1, floor.numDelayed());

        assertTrue(op.forceComplete());
        assertFalse(op.forceComplete());
        assertEquals(0, floor.numDelayed(), "the forced request's timer entry is cancelled");
        assertEquals(1, body.completions.get());
        assertEquals(0, body.expirations.get());
    }

    @Test
    void tryCompleteElseWatch_requestNotForced_expiresOnceWhenDue() throws InterruptedException {
        Body body = new Body();
        Completable op = floor.newOperation(body, 1);
        assertFalse(floor.tryCompleteElseWatch(op, keys));

        assertTrue(body.expired.await(30, TimeUnit.SECONDS), "the timer fires the request");
        assertFalse(op.forceComplete(), "expired: forcing it now does nothing");
        assertEquals(1, body.completions.get());
        assertEquals(1, body.expirations.get());
    }

    @Test
    void tryCompleteElseWatch_forcedBeforeSubmission_schedulesNothing() {
        Body body = new Body();
        Completable op = floor.newOperation(body, 60_000);
        assertTrue(op.forceComplete());

        assertFalse(floor.tryCompleteElseWatch(op, keys));
        assertEquals(0, floor.numDelayed());
        assertEquals(1, body.completions.get());
    }

    @Test
    void tryCompleteElseWatch_conditionAlreadyHolds_completesAtOnceUnscheduled() {
        Body body = new Body();
        body.canComplete = true;

        assertTrue(floor.tryCompleteElseWatch(floor.newOperation(body, 60_000), keys));
        assertEquals(0, floor.numDelayed());
        assertEquals(1, body.completions.get());
    }

    private static final class Body implements OpBody {
        volatile boolean canComplete;
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger expirations = new AtomicInteger();
        final CountDownLatch expired = new CountDownLatch(1);

        @Override
        public boolean canComplete() {
            return canComplete;
        }

        @Override
        public void completed() {
            completions.incrementAndGet();
        }

        @Override
        public void expired() { // after completed(), as a purgatory calls them
            expirations.incrementAndGet();
            expired.countDown();
        }
    }
}
