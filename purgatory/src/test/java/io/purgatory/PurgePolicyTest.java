package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The purge policy the reaper runs after each advance (WatcherList K5: empty key lists still
 * mapped), called here directly on a manual clock: emptied key lists kept for reuse, and one whose
 * key's hash changed, are swept once a clock second has passed since the last purge, on a clock
 * that reads negative too; however many operations settle meanwhile. A purgatory's own reaper runs
 * it on a clock that does not move by itself.
 */
class PurgePolicyTest {

    private static final int KEPT_PER_SHARD = EngineInternals.MAX_EMPTY_KEPT;

    private final ManualTimer timer = new ManualTimer();

    @AfterEach
    void tearDown() {
        timer.close();
    }

    @Test
    void purgeIfNeeded_emptiedListsKept_sweptOnceAClockSecondPassedSinceTheLastPurge() {
        DelayedOperationPurgatory<HookOp> p = purgatory();
        try {
            settleOn(p, "a");
            assertThat(p.engine().counters().emptyLists()).isEqualTo(1);

            timer.advanceClock(999);
            p.engine().purgeIfNeeded();
            assertThat(p.stats().purges()).isZero();
            timer.advanceClock(1);
            p.engine().purgeIfNeeded();
            assertThat(p.stats().purges()).as("a second after the last purge (the start)").isEqualTo(1);
            assertThat(p.engine().counters().emptyLists()).isZero();

            settleOn(p, "b");
            timer.advanceClock(500);
            p.engine().purgeIfNeeded();
            assertThat(p.stats().purges()).as("half a second after the last purge").isEqualTo(1);
            timer.advanceClock(500);
            p.engine().purgeIfNeeded();
            assertThat(p.stats().purges()).isEqualTo(2);
        } finally {
            p.close();
        }
    }

    @Test
    void purgeIfNeeded_nothingLingersAndNothingKeptLong_neverPurgesHoweverManySettled() {
        DelayedOperationPurgatory<HookOp> p = purgatory();
        for (int i = 0; i < KEPT_PER_SHARD + 4; i++) {
            settleOn(p, "k" + i % KEPT_PER_SHARD);
        }

        p.engine().purgeIfNeeded();

        assertThat(p.stats().purges()).isZero();
        assertThat(p.engine().counters().emptyLists()).isEqualTo(KEPT_PER_SHARD);
        p.close();
    }

    @Test
    void watch_listLeftMappedByAKeyWhoseHashChanged_isReusedWhenFoundAgainAndCountedExactly() {
        DelayedOperationPurgatory<HookOp> p = purgatory();
        fillTheKeptLists(p);
        BadInputCatalogueTest.MutableKey key = new BadInputCatalogueTest.MutableKey(77);
        HookOp first = new HookOp(100);
        p.tryCompleteElseWatch(first, List.of(key));
        key.hash = 78;
        assertThat(first.cancel()).isTrue(); // the shard keeps no more, and its removal does not find it: mapped
        assertThat(p.engine().counters().emptyLists()).isEqualTo(KEPT_PER_SHARD + 1);
        p.engine().checkInvariants();

        key.hash = 77; // found again: the list left mapped is reused
        HookOp second = new HookOp(100);
        p.tryCompleteElseWatch(second, List.of(key));
        assertThat(p.engine().counters().emptyLists()).isEqualTo(KEPT_PER_SHARD);
        p.engine().checkInvariants();

        assertThat(second.forceComplete()).isTrue();
        assertThat(p.engine().counters().emptyLists())
                .as("the shard still keeps 16: the list is removed, not kept as a 17th")
                .isEqualTo(KEPT_PER_SHARD);
        p.engine().checkInvariants();
        p.close();
    }

    @Test
    void watch_keyWhoseEmptiedListIsKept_reusesItAndKeepsCountingExactly() {
        DelayedOperationPurgatory<HookOp> p = purgatory();
        settleOn(p, "hot");
        assertThat(p.engine().counters().emptyLists()).isEqualTo(1);

        HookOp op = new HookOp(100);
        p.tryCompleteElseWatch(op, List.of("hot"));
        assertThat(p.engine().counters().emptyLists()).as("reused").isZero();
        assertThat(p.watchedKeys()).isEqualTo(1);
        op.forceComplete();
        for (int i = 0; i < KEPT_PER_SHARD; i++) {
            settleOn(p, "hot"); // reuse and keep, again and again: one kept list
        }
        settleOn(p, "fresh-1");
        settleOn(p, "fresh-2");

        assertThat(p.engine().counters().emptyLists()).as("hot, fresh-1 and fresh-2 are all kept").isEqualTo(3);
        assertThat(p.watchedKeys()).isZero();
        p.engine().checkInvariants();
        p.close();
    }

    @Test
    void keptEmptyKeyLists_clockReadingNegative_areSweptAfterASecond() {
        ManualClock clock = new ManualClock(-TimeUnit.HOURS.toNanos(1));
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("negative-clock")
                .timerEnabled(false).reaperEnabled(false).clock(clock).build();
        HookOp op = new HookOp(100);
        p.tryCompleteElseWatch(op, List.of("k"));
        op.forceComplete();
        assertThat(p.engine().counters().emptyLists()).as("kept for reuse").isEqualTo(1);

        clock.advance(500, TimeUnit.MILLISECONDS);
        p.engine().purgeIfNeeded();
        assertThat(p.engine().counters().emptyLists()).as("kept less than a second").isEqualTo(1);
        clock.advance(600, TimeUnit.MILLISECONDS);
        p.engine().purgeIfNeeded();

        assertThat(p.engine().counters().emptyLists()).isZero();
        assertThat(p.stats().purges()).isEqualTo(1);
        p.close();
    }

    @Test
    void reaper_ownTimerOnAClockThatDoesNotMoveByItself_sweepsKeptListsOnceTheClockPassesASecond() {
        ManualClock clock = new ManualClock();
        try (DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("manual-clock-reaper")
                .clock(ReliabilitySupport.readingOf(clock)).build()) { // not a ManualClock: refused for an own timer
            HookOp op = new HookOp(60_000);
            p.tryCompleteElseWatch(op, List.of("k"));
            op.forceComplete();
            assertThat(p.engine().counters().emptyLists()).isEqualTo(1);

            clock.advance(2, TimeUnit.SECONDS);

            ReliabilitySupport.awaitCondition("the reaper swept the kept list", () -> p.engine().counters()
                    .emptyLists() == 0);
        }
    }

    private DelayedOperationPurgatory<HookOp> purgatory() {
        return DelayedOperationPurgatory.<HookOp>builder("purge-policy").timer(timer).reaperEnabled(false)
                .shards(1).build();
    }

    private static void settleOn(DelayedOperationPurgatory<HookOp> p, Object key) {
        HookOp op = new HookOp(100);
        p.tryCompleteElseWatch(op, List.of(key));
        assertThat(op.forceComplete()).isTrue();
    }

    private static void fillTheKeptLists(DelayedOperationPurgatory<HookOp> p) {
        for (int i = 0; i < KEPT_PER_SHARD; i++) {
            settleOn(p, "kept-" + i);
        }
    }



}
