package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The tracker's per-thread logs, merged: lost, early and doubled fires are counted as before. */
class LatenessTrackerTest {

    @Test
    void summarize_firesFromTwoThreads_countsLostEarlyTwiceAndTakesTheFirstFire() throws Exception {
        LatenessTracker tracker = new LatenessTracker(6, 100, 100);
        for (int i = 0; i < 6; i++) {
            tracker.adding(i);
        }
        long farFuture = System.nanoTime() + 3_600_000_000_000L;
        Thread other = new Thread(() -> {
            tracker.fired(0, System.nanoTime() - 5_000_000); // 5 ms late
            tracker.fired(1, System.nanoTime() - 1_000_000); // its first fire, 1 ms late
        });
        other.start();
        other.join();
        tracker.fired(1, System.nanoTime() - 9_000_000); // again, later
        tracker.fired(2, farFuture); // early
        tracker.fired(3, System.nanoTime() - 2_000_000);
        tracker.fired(4, System.nanoTime() - 3_000_000); // 5 never fires

        LatenessTracker.Summary all = tracker.summarize(6);

        assertEquals(5, tracker.firedCount() - 1, "six fires, one of them a second one");
        assertEquals(1, all.lost());
        assertEquals(1, all.early());
        assertEquals(1, all.twice());
        assertEquals(5, all.count());
        assertEquals(1.0, Math.floor(tracker.summarize(2, Long.MIN_VALUE, farFuture).minMs()),
                "the first fire of timeout 1 is the one kept");
    }
}
