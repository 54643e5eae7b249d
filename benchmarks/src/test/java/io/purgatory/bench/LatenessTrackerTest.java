package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The tracker's per-thread logs, merged: lost, early and doubled fires are counted as before; and the
 * tails relative to the delay.
 */
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

    @Test
    void summarize_lateRelativeToDelay_countsThoseBeyondTheBoundAndTakesTheP9999OfTheShare() {
        LatenessTracker tracker = new LatenessTracker(4, 100, 100); // every delay 100 ms: bound 6.25 ms
        for (int i = 0; i < 4; i++) {
            tracker.adding(i);
        }
        tracker.fired(0, System.nanoTime() - 1_000_000); // 1 ms late: 1% of its delay, within
        tracker.fired(1, System.nanoTime() - 6_000_000); // 6 ms: within
        tracker.fired(2, System.nanoTime() - 7_000_000); // 7 ms: beyond
        tracker.fired(3, System.nanoTime() - 20_000_000); // 20 ms: beyond, and the p99.99

        LatenessTracker.Summary s = tracker.summarize(4);

        assertEquals(2, s.overBound());
        assertEquals(50.0, s.overBoundPercent());
        assertEquals(20, Math.floor(s.ofDelayP9999Percent()), "20 ms of 100 ms, in percent");
        assertEquals(20, Math.floor(s.p9999Ms()));
        assertEquals(6.25, LatenessTracker.boundMs(100));
        assertEquals(1.0, LatenessTracker.boundMs(10), "never under 1 ms");
    }
}
