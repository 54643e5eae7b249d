package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Micrometer meters: names, tags, values measured on the manual clock, removal on close. */
class PurgatoryMetricsTest {

    private static final Set<String> ALLOWED_TAGS = Set.of("purgatory", "outcome", "callback");

    private final ManualTimer timer = new ManualTimer();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DelayedOperationPurgatory<MockOperation> purgatory = builder("metered").build();

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
        registry.close();
    }

    @Test
    void gauges_operationsWatchedAndSettled_reportPendingWatchedAndKeys() {
        MockOperation op1 = new MockOperation(100);
        MockOperation op2 = new MockOperation(100);
        assertGauges(0, 0, 0);

        purgatory.tryCompleteElseWatch(op1, List.of("a", "b"));
        purgatory.tryCompleteElseWatch(op2, List.of("b"));
        assertGauges(2, 3, 2);

        op1.forceComplete();
        assertGauges(1, 1, 1);

        timer.advanceClock(100);
        assertGauges(0, 0, 0);
    }

    @Test
    void operationsTimer_operationExpiresAfter100ManualMs_recordsExpiredFor100Ms() {
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

        timer.advanceClock(100);

        Timer expired = operations("expired");
        assertThat(expired.count()).isEqualTo(1);
        assertThat(expired.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(100.0);
        assertThat(operations("completed").count()).isZero();
        assertThat(operations("cancelled").count()).isZero();
        Timer lateness = registry.get("purgatory.expiration.lateness").tag("purgatory", "metered").timer();
        assertThat(lateness.count()).isEqualTo(1);
        assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isZero();
    }

    @Test
    void latenessTimer_clockJumpsPastDeadline_recordsHowLateTheExpiryWas() {
        timer.advanceClock(7); // not at zero: any start reading works
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

        timer.advanceClock(150);

        assertThat(operations("expired").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(150.0);
        Timer lateness = registry.get("purgatory.expiration.lateness").tag("purgatory", "metered").timer();
        assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(50.0);
    }

    @Test
    void operationsTimer_completedAndCancelledOperations_recordTimeSpentWatchedByOutcome() {
        MockOperation completed = new MockOperation(1_000);
        MockOperation cancelled = new MockOperation(1_000);
        MockOperation atOnce = new MockOperation(1_000);
        atOnce.completable = true;
        purgatory.tryCompleteElseWatch(completed, List.of("a"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("b"));
        purgatory.tryCompleteElseWatch(atOnce, List.of("c"));

        timer.advanceClock(30);
        completed.completable = true;
        purgatory.checkAndComplete("a");
        timer.advanceClock(20);
        purgatory.cancelForKey("b");

        assertThat(operations("completed").count()).as("never-watched operations are not timed").isEqualTo(1);
        assertThat(operations("completed").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(30.0);
        assertThat(operations("cancelled").count()).isEqualTo(1);
        assertThat(operations("cancelled").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(50.0);
        assertThat(operations("expired").count()).isZero();
    }

    @Test
    void operationsTimer_clockGiven_measuresDurationsOnThatClock() {
        ManualClock clock = new ManualClock(-5_000_000_000L);
        try (DelayedOperationPurgatory<MockOperation> p = builder("clocked").clock(clock).build()) {
            MockOperation op = new MockOperation(1_000);
            p.tryCompleteElseWatch(op, List.of("k"));
            clock.advanceMillis(7);
            op.forceComplete();

            Timer completed = registry.get("purgatory.operations")
                    .tags("purgatory", "clocked", "outcome", "completed").timer();
            assertThat(completed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(7.0);
        }
    }

    @Test
    void callbackErrorsCounter_callbacksThrow_countsByCallback() {
        DelayedOperationPurgatory<MockOperation> p = builder("failing").errorHandler((n, o, c, e) -> { }).build();
        try (p) {
            MockOperation op = new MockOperation(100) {
                @Override
                public void onComplete() {
                    throw new IllegalStateException("onComplete failed");
                }

                @Override
                public void onExpiration() {
                    throw new IllegalStateException("onExpiration failed");
                }
            };
            p.tryCompleteElseWatch(op, List.of("k"));
            timer.advanceClock(100);

            assertThat(callbackErrors("failing", "onComplete")).isEqualTo(1.0);
            assertThat(callbackErrors("failing", "onExpiration")).isEqualTo(1.0);
            assertThat(callbackErrors("failing", "tryComplete")).isZero();
            assertThat(callbackErrors("failing", "onCancel")).isZero();
        }
    }

    @Test
    void rejectedCounter_purgatoryFull_countsRejections() {
        try (DelayedOperationPurgatory<MockOperation> p = builder("full").maxPending(1).build()) {
            p.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

            assertThatThrownBy(() -> p.tryCompleteElseWatch(new MockOperation(100), List.of("k")))
                    .isInstanceOf(PurgatoryFullException.class);

            assertThat(registry.get("purgatory.rejected").tag("purgatory", "full").functionCounter().count())
                    .isEqualTo(1.0);
        }
    }

    @Test
    void purgesCounter_keyEmptied_listIsKeptForReuseThenSweptAfterASecond() {
        try (DelayedOperationPurgatory<MockOperation> p = builder("purged").build()) {
            MutableKey key = new MutableKey(1);
            MockOperation first = new MockOperation(100_000);
            p.tryCompleteElseWatch(first, List.of(key));
            key.hash = 2; // even a key whose hashCode changed is swept

            first.forceComplete();

            assertThat(p.watched()).isZero();
            assertThat(p.watchedKeys()).as("no pending operation on it").isZero();
            assertThat(p.emptyKeyLists()).as("its list is kept for the key's next operation").isEqualTo(1);
            p.checkInvariants();
            timer.advanceClock(999);
            p.purgeIfNeeded();
            assertThat(p.stats().purges()).as("kept for less than a second: no sweep yet").isZero();
            timer.advanceClock(1);

            p.purgeIfNeeded();

            assertThat(p.emptyKeyLists()).isZero();
            assertThat(p.stats().purges()).isEqualTo(1);
            assertThat(registry.get("purgatory.purges").tag("purgatory", "purged").functionCounter().count())
                    .isEqualTo(1.0);
            p.checkInvariants();
            timer.advanceClock(5_000);
            p.purgeIfNeeded();
            assertThat(p.stats().purges()).as("nothing kept: no purge").isEqualTo(1);
        }
    }

    @Test
    void purgesCounter_shardFullAndKeyHashChanged_lingersUntilPurgeIntervalSettled() {
        try (DelayedOperationPurgatory<MockOperation> p = builder("lingering").shards(1).purgeInterval(2).build()) {
            for (int i = 0; i < WatcherList.MAX_EMPTY_KEPT; i++) { // fill the shard's kept lists
                MockOperation op = new MockOperation(100_000);
                p.tryCompleteElseWatch(op, List.of("kept-" + i));
                op.forceComplete();
            }
            MutableKey key = new MutableKey(1);
            MockOperation first = new MockOperation(100_000);
            p.tryCompleteElseWatch(first, List.of(key));
            key.hash = 2;

            first.forceComplete(); // its list cannot be kept and cannot be removed: it lingers

            assertThat(p.emptyKeyLists()).isEqualTo(WatcherList.MAX_EMPTY_KEPT + 1);
            p.purgeIfNeeded(); // the manual clock has not moved: only the lingering rule can fire
            assertThat(p.stats().purges()).isEqualTo(1);
            assertThat(p.emptyKeyLists()).isZero();
            assertThat(p.watchedKeys()).isZero();
            p.checkInvariants();
        }
    }

    @Test
    void meters_everyMeter_isTaggedOnlyByPurgatoryOutcomeOrCallback() {
        List<Meter> meters = registry.getMeters();

        assertThat(meters.stream().map(m -> m.getId().getName()).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder("purgatory.pending", "purgatory.watched", "purgatory.keys",
                        "purgatory.operations", "purgatory.expiration.lateness", "purgatory.callback.errors",
                        "purgatory.rejected", "purgatory.purges", "purgatory.expirations.refused");
        assertThat(meters).hasSize(3 + 3 + 1 + 4 + 3);
        assertThat(meters).allSatisfy(m -> {
            List<Tag> tags = m.getId().getTags();
            assertThat(tags).extracting(Tag::getKey).isSubsetOf(ALLOWED_TAGS);
            assertThat(m.getId().getTag("purgatory")).isEqualTo("metered");
        });
        assertThat(meters.stream().filter(m -> m.getId().getName().equals("purgatory.operations"))
                .map(m -> m.getId().getTag("outcome")))
                .containsExactlyInAnyOrder("completed", "expired", "cancelled");
        assertThat(meters.stream().filter(m -> m.getId().getName().equals("purgatory.callback.errors"))
                .map(m -> m.getId().getTag("callback")))
                .containsExactlyInAnyOrder("tryComplete", "onComplete", "onExpiration", "onCancel");
    }

    @Test
    void close_removesEveryMeterOfThisPurgatoryOnly() {
        DelayedOperationPurgatory<MockOperation> other = builder("other").build();
        int both = registry.getMeters().size();

        other.close();

        assertThat(registry.getMeters()).hasSize(both / 2)
                .allSatisfy(m -> assertThat(m.getId().getTag("purgatory")).isEqualTo("metered"));
        purgatory.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void bindTo_alreadyBound_throws() {
        MeterRegistry second = new SimpleMeterRegistry();

        assertThatThrownBy(() -> purgatory.metrics().bindTo(second))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'metered'");
        assertThat(second.getMeters()).isEmpty();
    }

    @Test
    void bindTo_registryHasAPurgatoryOfTheSameName_throwsAndKeepsTheFirstOnesMeters() {
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));

        assertThatThrownBy(() -> builder("metered").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'metered'");

        assertGauges(1, 1, 1);
    }

    @Test
    void latenessTimer_operationsExpiredByClose_areCountedButNotLate() {
        Timer expired = operations("expired");
        Timer lateness = registry.get("purgatory.expiration.lateness").tag("purgatory", "metered").timer();
        purgatory.tryCompleteElseWatch(new MockOperation(100), List.of("k"));
        timer.advanceClock(30);

        purgatory.close();

        assertThat(expired.count()).isEqualTo(1);
        assertThat(expired.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(30.0);
        assertThat(lateness.count()).as("expired early by close(), not late by the timer").isZero();
    }

    @Test
    void bindTo_afterClose_throws() {
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("late")
                .timer(timer).reaperEnabled(false).build();
        p.close();

        assertThatThrownBy(() -> p.metrics().bindTo(registry)).isInstanceOf(IllegalStateException.class);
        assertThat(registry.find("purgatory.pending").tag("purgatory", "late").gauge()).isNull();
    }

    @Test
    void bindTo_afterOperationsWereWatched_gaugesIncludeThem() {
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("unbound")
                .timer(timer).reaperEnabled(false).build()) {
            p.tryCompleteElseWatch(new MockOperation(100), List.of("a", "b"));

            p.metrics().bindTo(registry);

            assertThat(registry.get("purgatory.pending").tag("purgatory", "unbound").gauge().value()).isEqualTo(1.0);
            assertThat(registry.get("purgatory.watched").tag("purgatory", "unbound").gauge().value()).isEqualTo(2.0);
            timer.advanceClock(100);
            assertThat(registry.get("purgatory.pending").tag("purgatory", "unbound").gauge().value()).isZero();
            assertThat(registry.get("purgatory.operations").tags("purgatory", "unbound", "outcome", "expired")
                    .timer().count()).as("watched before binding: not timed").isZero();
        }
    }

    private PurgatoryBuilder<MockOperation> builder(String name) {
        return DelayedOperationPurgatory.<MockOperation>builder(name).timer(timer).reaperEnabled(false)
                .meterRegistry(registry);
    }

    private Timer operations(String outcome) {
        return registry.get("purgatory.operations").tags("purgatory", "metered", "outcome", outcome).timer();
    }

    private double callbackErrors(String purgatoryName, String callback) {
        return registry.get("purgatory.callback.errors").tags("purgatory", purgatoryName, "callback", callback)
                .functionCounter().count();
    }

    private void assertGauges(int pending, int watched, int keys) {
        assertThat(registry.get("purgatory.pending").tag("purgatory", "metered").gauge().value()).isEqualTo(pending);
        assertThat(registry.get("purgatory.watched").tag("purgatory", "metered").gauge().value()).isEqualTo(watched);
        assertThat(registry.get("purgatory.keys").tag("purgatory", "metered").gauge().value()).isEqualTo(keys);
    }

    /** A key whose hashCode the test changes while it is watched (a misuse the purge repairs). */
    static final class MutableKey {
        volatile int hash;

        MutableKey(int hash) {
            this.hash = hash;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public String toString() {
            return "MutableKey";
        }
    }
}
