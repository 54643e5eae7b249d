package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The allocation floor expires every insert once, never early; its filler takes the bytes asked for. */
class AllocationFloorTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS) // a hang guard
    void insert_manyTimeouts_eachExpiresOnceAndNoneEarly() {
        LatenessTracker tracker = new LatenessTracker(2_000, 100, 150);
        try (AllocationFloor floor = new AllocationFloor("floor-test", 200)) {
            for (int i = 0; i < tracker.size(); i++) {
                tracker.adding(i);
                floor.insert(tracker, i);
            }
            tracker.awaitAll(10_000);
        }

        LatenessTracker.Summary s = tracker.summarize(tracker.size());

        assertEquals(0, s.lost());
        assertEquals(0, s.early());
        assertEquals(0, s.twice());
    }

    @Test
    void fillerLength_bytesOnTheHeap_matchesTheArraySize() {
        assertEquals(200, AllocationFloor.arrayBytes(AllocationFloor.fillerLength(200)));
        assertEquals(16, AllocationFloor.arrayBytes(AllocationFloor.fillerLength(16)));
        assertEquals(-1, AllocationFloor.fillerLength(15), "no array is that small");
    }
}
