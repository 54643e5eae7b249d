package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.internal.EngineInternals;
import io.purgatory.internal.OperationState;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Edges of the purgatory that the behaviour suites leave open, found by mutation testing: shard
 * locks released by every reading call, a walk of a key that meets an operation settled during
 * the walk, an operation completed between its tries and its timer entry, and a callback failure
 * of an operation that was never submitted.
 */
class PurgatoryEdgeCaseTest {

    private final ManualTimer timer = new ManualTimer();

    @AfterEach
    void tearDown() {
        timer.close();
    }

    @Test
    void shardLock_afterEveryReadingCall_isFreeForAnotherThread() throws Exception {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("locks").timer(timer)
                .reaperEnabled(false).shards(1).build();
        p.tryCompleteElseWatch(new HookOp(100), List.of("a"));

        p.engine().checkInvariants(); // walks every shard and counts its keys
        assertThat(p.cancelForKey("missing")).isEmpty();
        assertThat(p.checkAndComplete("a")).isZero();
        HookOp other = new HookOp(100);
        Thread watcher = new Thread(() -> p.tryCompleteElseWatch(other, List.of("b")), "other-thread");
        watcher.setDaemon(true);
        watcher.start();
        watcher.join(TimeUnit.SECONDS.toMillis(ReliabilitySupport.BOUND_SECONDS));

        assertThat(watcher.isAlive()).as("the other thread got the shard lock").isFalse();
        assertThat(p.numDelayed()).isEqualTo(2);
        p.close();
    }

    @Test
    void checkAndComplete_anOperationSettledEarlierInTheSameWalk_isSkippedNotTriedAndNotCounted() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("walk").timer(timer)
                .reaperEnabled(false).build();
        HookOp first = new HookOp(100);
        HookOp second = new HookOp(100);
        p.tryCompleteElseWatch(first, List.of("k"));
        p.tryCompleteElseWatch(second, List.of("k"));
        int secondTriesBefore = second.tries.get();
        AtomicBoolean once = new AtomicBoolean();
        first.tryHook = () -> {
            if (once.compareAndSet(false, true)) {
                second.cancel(); // settled while the walk holds its copy: never tried (OperationState O2)
            }
        };
        first.completable = true;
        second.completable = true;

        assertThat(p.checkAndComplete("k")).isEqualTo(1);

        assertThat(first.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(second.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(second.tries.get()).as("(O2) never tried once settled").isEqualTo(secondTriesBefore);
        assertThat(second.callbackCounts()).isEqualTo("0,0,1");
        assertThat(p.watched()).isZero();
        p.close();
    }

    @Test
    void isWatched_throughTheLifecycle_isSetOnceTheOperationIsOnItsKeys() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("watched-flag").timer(timer)
                .reaperEnabled(false).build();
        HookOp watched = new HookOp(100);
        HookOp atOnce = new HookOp(100);
        atOnce.completable = true;
        assertThat(OperationState.wasWatched(watched)).isFalse();

        p.tryCompleteElseWatch(watched, List.of("k"));
        p.tryCompleteElseWatch(atOnce, List.of("k"));

        assertThat(OperationState.wasWatched(watched)).isTrue();
        assertThat(OperationState.wasWatched(atOnce)).as("completed by its first try: never watched").isFalse();
        watched.cancel();
        assertThat(OperationState.wasWatched(watched)).as("a settled operation keeps the flag").isTrue();
        p.close();
    }

    @Test
    void callbackThrows_operationNeverSubmitted_isLoggedUnderNoPurgatory() {
        HookOp loose = new HookOp(100);
        loose.completeHook = () -> {
            throw new IllegalStateException("boom");
        };

        try (LogCapture log = new LogCapture(DelayedOperationPurgatory.class)) {
            assertThat(loose.forceComplete()).isTrue();

            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("'(none)'", "onComplete");
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("boom");
            });
        }
        assertThat(loose.callbackCounts()).isEqualTo("1,0,0");
    }

    @Test
    void watch_operationOnOneKeyOrMore_isItselfTheNodeOfItsOnlyKeyOrHasOneNodePerKey() {
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("layout").timer(timer)
                .reaperEnabled(false).build();
        HookOp single = new HookOp(100);
        HookOp triple = new HookOp(100);

        p.tryCompleteElseWatch(single, List.of("a"));
        p.tryCompleteElseWatch(triple, List.of("b", "c", "d"));

        assertThat(EngineInternals.listKey(single)).as("(K3) its one key's list holds the operation itself")
                .isEqualTo("a");
        assertThat(EngineInternals.ownerEngine(single)).as("(O6) its owner is its engine").isSameAs(p.engine());
        assertThat(EngineInternals.nodeKeys(single)).isEmpty();
        assertThat(EngineInternals.listKey(triple)).as("(K3) on several keys: a node on each").isNull();
        assertThat(EngineInternals.ownerEngine(triple)).isSameAs(p.engine());
        assertThat(EngineInternals.nodeKeys(triple)).containsExactlyInAnyOrder("b", "c", "d");
        assertThat(p.watched()).isEqualTo(4);
        triple.cancel();
        assertThat(p.watched()).isEqualTo(1);
        single.forceComplete();
        assertThat(EngineInternals.holdsNoWatchLink(single)).as("(K2) unlinked, it reaches no list").isTrue();
        assertThat(EngineInternals.ownerEngine(single)).as("(O6) its owner stays its engine").isSameAs(p.engine());
        p.engine().checkInvariants();
        p.close();
    }

    @Test
    void operationsTimer_waitsShorterThanAMillisecond_areRecordedToTheMicrosecond() {
        RecordingMetrics metrics = new RecordingMetrics();
        DelayedOperationPurgatory<HookOp> p = DelayedOperationPurgatory.<HookOp>builder("micros").timer(timer)
                .reaperEnabled(false).metrics(metrics).build();
        HookOp shortDelay = new HookOp(100);
        HookOp longestMicrosDelay = new HookOp(TimeUnit.MINUTES.toMillis(30));
        HookOp sameInstant = new HookOp(100);
        p.tryCompleteElseWatch(shortDelay, List.of("k"));
        p.tryCompleteElseWatch(longestMicrosDelay, List.of("k"));
        p.tryCompleteElseWatch(sameInstant, List.of("k"));
        assertThat(sameInstant.forceComplete()).isTrue(); // a wait of zero is still a wait

        timer.clock().advance(500, TimeUnit.MICROSECONDS);
        shortDelay.forceComplete();
        longestMicrosDelay.forceComplete();

        assertThat(metrics.of("micros").count(Outcome.COMPLETED)).isEqualTo(3);
        assertThat(metrics.of("micros").totalNanos(Outcome.COMPLETED)).isEqualTo(2 * 500_000L);
        p.close();
    }
}
