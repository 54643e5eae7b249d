package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The acks floor still does the job the workload measures: each operation completes once, when its condition holds. */
class FloorPurgatoryTest {

    private final FloorPurgatory floor = new FloorPurgatory();
    private final BenchKey[] keys = BenchKey.range(3);

    @Test
    void checkAndComplete_completesOnlyTheOperationsWhoseConditionHolds_eachOnce() {
        Body ready = new Body();
        Body waiting = new Body();
        assertFalse(floor.tryCompleteElseWatch(floor.newOperation(ready, 1), List.of(keys[0], keys[1])));
        assertFalse(floor.tryCompleteElseWatch(floor.newOperation(waiting, 1), List.of(keys[0])));

        ready.canComplete = true;
        assertEquals(1, floor.checkAndComplete(keys[0]));
        assertEquals(0, floor.checkAndComplete(keys[1]), "completed already: its entry on the other key is dropped");
        assertEquals(0, floor.checkAndComplete(keys[0]));

        waiting.canComplete = true;
        assertEquals(1, floor.checkAndComplete(keys[0]));
        assertEquals(1, ready.completions.get());
        assertEquals(1, waiting.completions.get());
    }

    @Test
    void tryCompleteElseWatch_conditionAlreadyHolds_completesAtOnceAndWatchesNothing() {
        Body body = new Body();
        body.canComplete = true;

        assertTrue(floor.tryCompleteElseWatch(floor.newOperation(body, 1), List.of(keys[2])));
        assertEquals(0, floor.checkAndComplete(keys[2]));
        assertEquals(1, body.completions.get());
    }

    @Test
    void forceComplete_ofAWatchedOperation_winsOnceAndTheNextCheckDropsIt() {
        Body body = new Body();
        Completable op = floor.newOperation(body, 1);
        floor.tryCompleteElseWatch(op, List.of(keys[1]));

        assertTrue(op.forceComplete());
        assertFalse(op.forceComplete());
        body.canComplete = true;
        assertEquals(0, floor.checkAndComplete(keys[1]));
        assertTrue(op.isCompleted());
        assertEquals(1, body.completions.get());
    }

    private static final class Body implements OpBody {
        volatile boolean canComplete;
        final AtomicInteger completions = new AtomicInteger();

        @Override
        public boolean canComplete() {
            return canComplete;
        }

        @Override
        public void completed() {
            completions.incrementAndGet();
        }
    }
}
