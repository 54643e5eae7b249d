package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationKey;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka's side of the differences docs/porting-from-kafka.md lists, checked against the
 * kafka-server-common on this module's class path (the only module that has it). Our side of each
 * is checked by PortingFromKafkaTest in the examples module.
 */
class KafkaBehaviourTest {

    private static final long LONG_DELAY_MS = 100_000;

    private final DelayedOperationPurgatory<Op> purgatory = new DelayedOperationPurgatory<>("kafka-behaviour", 0);

    @AfterEach
    void shutdown() throws Exception {
        purgatory.shutdown();
    }

    @Test
    void watched_afterTheOperationCompletes_staysUntilEachOfItsKeysIsChecked() {
        Op op = new Op(LONG_DELAY_MS);
        purgatory.tryCompleteElseWatch(op, List.of(key("a"), key("b"), key("c")));

        assertTrue(op.forceComplete());

        assertEquals(0, purgatory.numDelayed(), "the timer entry goes at once");
        assertEquals(3, purgatory.watched(), "the watch entries stay");
        purgatory.checkAndComplete(key("a"));
        assertEquals(2, purgatory.watched());
    }

    @Test
    void tryCompleteElseWatch_duplicateKeys_watchesTheOperationOncePerOccurrence() {
        purgatory.tryCompleteElseWatch(new Op(LONG_DELAY_MS), List.of(key("a"), key("b"), key("a")));

        assertEquals(3, purgatory.watched());
    }

    @Test
    void cancel_pendingOperation_onlyRemovesItsTimerEntryAndRunsNoCallback() {
        Op op = new Op(LONG_DELAY_MS);
        purgatory.tryCompleteElseWatch(op, List.of(key("a")));

        op.cancel();

        assertFalse(op.isCompleted());
        assertEquals(0, purgatory.numDelayed());
        assertEquals(1, purgatory.watched(), "still watched: a check can complete it later");
        op.completable = true;
        assertEquals(1, purgatory.checkAndComplete(key("a")));
    }

    @Test
    void isCancelled_trueWheneverTheOperationHasNoTimerEntry_beforeSubmissionAndAfterCompletion() {
        Op op = new Op(LONG_DELAY_MS);
        assertTrue(op.isCancelled(), "never submitted");
        purgatory.tryCompleteElseWatch(op, List.of(key("a")));
        assertFalse(op.isCancelled());

        op.forceComplete();

        assertTrue(op.isCancelled(), "completed: forceComplete removed its timer entry");
    }

    @Test
    void cancelForKey_operationOnTwoKeys_staysWatchedOnTheOtherKeyAndRunsNoCallback() {
        Op op = new Op(LONG_DELAY_MS);
        purgatory.tryCompleteElseWatch(op, List.of(key("a"), key("b")));

        List<Op> cancelled = purgatory.cancelForKey(key("a"));

        assertEquals(List.of(op), cancelled);
        assertFalse(op.isCompleted());
        assertEquals(0, op.completions.get() + op.expirations.get());
        assertEquals(1, purgatory.watched(), "still on key b");
    }

    @Test
    void checkAndComplete_aTryThrows_theExceptionEscapesAndTheRestOfTheKeyIsNotTried() {
        Op throwing = new Op(LONG_DELAY_MS);
        Op ready = new Op(LONG_DELAY_MS);
        purgatory.tryCompleteElseWatch(throwing, List.of(key("a")));
        purgatory.tryCompleteElseWatch(ready, List.of(key("a")));
        throwing.failure = new IllegalStateException("tryComplete failed");
        ready.completable = true;

        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> purgatory.checkAndComplete(key("a")));

        assertSame(throwing.failure, thrown);
        assertFalse(ready.isCompleted(), "watched after the throwing one: never tried");
    }

    @Test
    void tryCompleteElseWatch_settledOrAlreadyWatchedOperation_isAccepted() {
        Op completed = new Op(LONG_DELAY_MS);
        completed.forceComplete();
        Op pending = new Op(LONG_DELAY_MS);
        purgatory.tryCompleteElseWatch(pending, List.of(key("a")));

        assertFalse(purgatory.tryCompleteElseWatch(completed, List.of(key("b"))));
        assertFalse(purgatory.tryCompleteElseWatch(pending, List.of(key("a"))));

        assertEquals(2, purgatory.watched(), "the pending operation is watched twice on its key");
    }

    @Test
    void shutdown_pendingOperation_isDroppedWithoutACallbackAndLaterSubmissionsAreAccepted() throws Exception {
        DelayedOperationPurgatory<Op> other = new DelayedOperationPurgatory<>("kafka-shutdown", 0);
        Op pending = new Op(LONG_DELAY_MS);
        other.tryCompleteElseWatch(pending, List.of(key("a")));

        other.shutdown();

        assertFalse(pending.isCompleted());
        assertEquals(0, pending.completions.get() + pending.expirations.get());
        assertEquals(1, other.watched());
        Op late = new Op(LONG_DELAY_MS);
        assertFalse(other.tryCompleteElseWatch(late, List.of(key("b"))), "accepted: no exception");
        assertEquals(2, other.watched());
    }

    @Test
    void numDelayed_timerDisabled_isZeroWhileOperationsArePending() throws Exception {
        SystemTimer timer = new SystemTimer("kafka-untimed");
        DelayedOperationPurgatory<Op> untimed = new DelayedOperationPurgatory<>("kafka-untimed", timer, 0, 1000,
                true, false);
        try {
            untimed.tryCompleteElseWatch(new Op(LONG_DELAY_MS), List.of(key("a")));

            assertEquals(0, untimed.numDelayed());
            assertEquals(1, untimed.watched());
        } finally {
            untimed.shutdown();
        }
    }

    @Test
    void delay_longMaxValue_expiresAtOnceInsteadOfNever() throws InterruptedException {
        Op forever = new Op(Long.MAX_VALUE);

        purgatory.tryCompleteElseWatch(forever, List.of(key("a")));

        assertTrue(forever.expired.await(30, TimeUnit.SECONDS), "expired: the deadline overflowed into the past");
    }

    private static Key key(String name) {
        return new Key(name);
    }

    /** Kafka's keys must implement DelayedOperationKey; its label is not used by the purgatory. */
    private record Key(String name) implements DelayedOperationKey {
        @Override
        public String keyLabel() {
            return name;
        }
    }

    /** A Kafka operation that completes once told it may, or throws when told to. */
    private static final class Op extends DelayedOperation {
        volatile boolean completable;
        volatile RuntimeException failure;
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger expirations = new AtomicInteger();
        final CountDownLatch expired = new CountDownLatch(1);

        Op(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            if (failure != null) {
                throw failure;
            }
            return completable && forceComplete();
        }

        @Override
        public void onComplete() {
            completions.incrementAndGet();
        }

        @Override
        public void onExpiration() {
            expirations.incrementAndGet();
            expired.countDown();
        }
    }
}
