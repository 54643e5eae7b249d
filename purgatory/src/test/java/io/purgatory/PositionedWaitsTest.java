package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Operations that wait for a key's position ({@code tryCompleteElseWatch(op, key, position)}):
 * a positional check tries exactly those whose position is reached; every guarantee of the
 * try-all path holds beside them on the same key.
 */
class PositionedWaitsTest {

    /** Completes once the shared high watermark reaches its offset; counts its tries. */
    static final class AwaitOffset extends DelayedOperation {
        final long offset;
        final AtomicLong watermark;
        final AtomicInteger tries = new AtomicInteger();
        volatile boolean blocked;

        AwaitOffset(long delayMs, long offset, AtomicLong watermark) {
            super(delayMs);
            this.offset = offset;
            this.watermark = watermark;
        }

        @Override
        protected boolean tryComplete() {
            tries.incrementAndGet();
            return !blocked && watermark.get() >= offset && forceComplete();
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }
    }

    private final ManualTimer timer = new ManualTimer();
    private final DelayedOperationPurgatory<DelayedOperation> purgatory =
            DelayedOperationPurgatory.<DelayedOperation>builder("positions").timer(timer).reaperEnabled(false).build();
    private final AtomicLong watermark = new AtomicLong(-1);

    @AfterEach
    void close() {
        purgatory.engine().checkInvariants();
        purgatory.close();
    }

    @Test
    void checkAndComplete_atAPosition_triesExactlyTheReachedOperationsAndNoOther() {
        List<AwaitOffset> ops = new ArrayList<>();
        Random random = new Random(7);
        List<Long> offsets = new ArrayList<>();
        for (long o = 0; o < 1_000; o++) {
            offsets.add(o);
        }
        Collections.shuffle(offsets, random);
        for (long offset : offsets) {
            AwaitOffset op = new AwaitOffset(60_000, offset, watermark);
            assertThat(purgatory.tryCompleteElseWatch(op, "tp-0", offset)).isFalse();
            ops.add(op);
        }
        ops.forEach(op -> op.tries.set(0)); // the submission's two tries

        watermark.set(9);
        assertThat(purgatory.checkAndComplete("tp-0", 9)).isEqualTo(10);

        for (AwaitOffset op : ops) {
            assertThat(op.tries.get()).as("offset %d", op.offset).isEqualTo(op.offset <= 9 ? 1 : 0);
            assertThat(op.isCompleted()).isEqualTo(op.offset <= 9);
        }
        assertThat(purgatory.numDelayed()).isEqualTo(990);
        assertThat(purgatory.watched()).isEqualTo(990);
        purgatory.engine().checkInvariants();
    }

    @Test
    void checkAndComplete_belowEveryPositionOrOnAnUnknownKey_triesNothing() {
        AwaitOffset op = new AwaitOffset(60_000, 100, watermark);
        purgatory.tryCompleteElseWatch(op, "tp-0", 100);
        op.tries.set(0);

        assertThat(purgatory.checkAndComplete("tp-0", 99)).isZero();
        assertThat(purgatory.checkAndComplete("unknown", 1_000)).isZero();

        assertThat(op.tries.get()).isZero();
    }

    @Test
    void checkAndComplete_reachedOperationSaysNotYet_isLeftToTheTryAllCheck() {
        AwaitOffset op = new AwaitOffset(60_000, 5, watermark);
        op.blocked = true; // e.g. waiting for enough in-sync replicas besides the position
        purgatory.tryCompleteElseWatch(op, "tp-0", 5);
        watermark.set(5);
        op.tries.set(0);

        assertThat(purgatory.checkAndComplete("tp-0", 5)).isZero();
        assertThat(op.tries.get()).isEqualTo(1);
        op.blocked = false;
        assertThat(purgatory.checkAndComplete("tp-0", 6)).as("reached before: not tried again").isZero();
        assertThat(op.tries.get()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
        purgatory.engine().checkInvariants();

        assertThat(purgatory.checkAndComplete("tp-0")).as("the in-sync set changed: try all").isEqualTo(1);
        assertThat(op.isCompleted()).isTrue();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void checkAndComplete_operationOnSeveralKeys_isTriedOnceAsEachReachesItsPositionAndCompletesWithTheLast() {
        AtomicLong[] marks = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        AtomicInteger tries = new AtomicInteger();
        DelayedOperation acks = new DelayedOperation(60_000) {
            @Override
            protected boolean tryComplete() {
                tries.incrementAndGet();
                return marks[0].get() >= 10 && marks[1].get() >= 20 && marks[2].get() >= 30 && forceComplete();
            }

            @Override
            protected void onComplete() {
            }

            @Override
            protected void onExpiration() {
            }
        };
        assertThat(purgatory.tryCompleteElseWatch(acks, List.of("a", "b", "c"), new long[] {10, 20, 30})).isFalse();
        assertThat(purgatory.watched()).isEqualTo(3);
        tries.set(0);

        marks[1].set(25);
        assertThat(purgatory.checkAndComplete("b", 25)).isZero();
        marks[0].set(9);
        assertThat(purgatory.checkAndComplete("a", 9)).isZero();
        assertThat(purgatory.checkAndComplete("b", 26)).isZero();
        assertThat(tries.get()).as("only b reached it, once").isEqualTo(1);
        marks[0].set(10);
        assertThat(purgatory.checkAndComplete("a", 10)).isZero();
        marks[2].set(30);
        assertThat(purgatory.checkAndComplete("c", 30)).isEqualTo(1);

        assertThat(tries.get()).isEqualTo(3);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void tryCompleteElseWatch_duplicateKeysOrAPositionMissing_isRefused() {
        AwaitOffset op = new AwaitOffset(60_000, 5, watermark);
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of("a", "a"), new long[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, List.of("a", "b"), new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 positions");
        assertThat(purgatory.tryCompleteElseWatch(op, List.of("a", "b"), new long[] {1, 2})).isFalse();
        assertThat(purgatory.watched()).isEqualTo(2);
    }

    @Test
    void checkAndComplete_plainOperationsBesidePositionedOnes_keepTryAllSemantics() {
        AwaitOffset positioned = new AwaitOffset(60_000, 100, watermark);
        AwaitOffset unreached = new AwaitOffset(60_000, 200, watermark);
        MockOperation plain = new MockOperation(60_000);
        purgatory.tryCompleteElseWatch(positioned, "tp-0", 100);
        purgatory.tryCompleteElseWatch(unreached, "tp-0", 200);
        purgatory.tryCompleteElseWatch(plain, List.of("tp-0"));
        assertThat(purgatory.watched()).isEqualTo(3);
        assertThat(purgatory.watchedKeys()).isEqualTo(1);
        positioned.tries.set(0);
        unreached.tries.set(0);
        int plainTries = plain.tryCompleteCalls.get();

        assertThat(purgatory.checkAndComplete("tp-0", 99)).isZero();
        assertThat(plain.tryCompleteCalls.get())
                .as("a positional check tries the plain ones").isEqualTo(plainTries + 1);
        assertThat(positioned.tries.get()).isZero();

        plain.completable = true;
        watermark.set(200); // e.g. a leader change: the caller does not know positions, it tries all
        assertThat(purgatory.checkAndComplete("tp-0")).isEqualTo(3);
        assertThat(unreached.tries.get()).isEqualTo(1);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void expireOrCancel_positionedOperations_leaveTheHeapAtOnce() {
        List<AwaitOffset> ops = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            AwaitOffset op = new AwaitOffset(i % 2 == 0 ? 10 : 60_000, 1_000 - i, watermark);
            purgatory.tryCompleteElseWatch(op, "tp-0", op.offset);
            ops.add(op);
        }
        timer.advanceClock(10); // the even half expires
        purgatory.engine().checkInvariants();
        assertThat(purgatory.numDelayed()).isEqualTo(50);
        for (int i = 1; i < 100; i += 4) {
            assertThat(ops.get(i).cancel()).isTrue();
        }
        purgatory.engine().checkInvariants();
        assertThat(purgatory.numDelayed()).isEqualTo(25);
        assertThat(purgatory.watched()).isEqualTo(25);

        watermark.set(Long.MAX_VALUE);
        assertThat(purgatory.checkAndComplete("tp-0", Long.MAX_VALUE - 1)).isEqualTo(25);
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void tryCompleteElseWatch_positionReachedAtSubmission_completesAtOnce() {
        watermark.set(10);
        AwaitOffset op = new AwaitOffset(60_000, 10, watermark);
        assertThat(purgatory.tryCompleteElseWatch(op, "tp-0", 10)).isTrue();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.stats().completedAtOnce()).isEqualTo(1);
    }

    @Test
    void close_positionedOperations_settlesThem() {
        AwaitOffset op = new AwaitOffset(60_000, 10, watermark);
        purgatory.tryCompleteElseWatch(op, "tp-0", 10);
        purgatory.close();
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
    }

    @Test
    void tryCompleteElseWatch_nullKeyOrOperationOrAResubmission_isRefusedNamingIt() {
        AwaitOffset op = new AwaitOffset(60_000, 10, watermark);
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, null, 10)).hasMessage("key");
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(null, "k", 10)).hasMessage("operation");
        assertThatThrownBy(() -> purgatory.checkAndComplete(null, 10)).hasMessage("key");
        purgatory.tryCompleteElseWatch(op, "tp-0", 10);
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op, "tp-0", 10))
                .isInstanceOf(IllegalStateException.class);
        assertThat(purgatory.watched()).isEqualTo(1);
    }

    /** Random submissions, expiries, cancels and checks against a model: the heap and the gauges agree after each. */
    @Test
    void checkAndComplete_randomSteps_agreeWithAModel() {
        Random random = new Random(42);
        TreeMap<Long, List<AwaitOffset>> model = new TreeMap<>();
        List<AwaitOffset> pending = new ArrayList<>();
        long position = 0;
        for (int step = 0; step < 20_000; step++) {
            int action = random.nextInt(10);
            if (action < 5) {
                long offset = position + random.nextInt(200);
                AwaitOffset op = new AwaitOffset(1 + random.nextInt(500), offset, watermark);
                if (random.nextBoolean()) {
                    purgatory.tryCompleteElseWatch(op, "tp-" + random.nextInt(3), offset);
                } else { // on every key, at the same offset: the first check that reaches it completes it
                    purgatory.tryCompleteElseWatch(op, List.of("tp-0", "tp-1", "tp-2"),
                            new long[] {offset, offset, offset});
                }
                if (!op.isCompleted()) {
                    model.computeIfAbsent(offset, o -> new ArrayList<>()).add(op);
                    pending.add(op);
                }
            } else if (action < 7 && !pending.isEmpty()) {
                pending.get(random.nextInt(pending.size())).cancel();
            } else if (action < 9) {
                position += random.nextInt(20);
                watermark.set(position);
                for (int k = 0; k < 3; k++) {
                    purgatory.checkAndComplete("tp-" + k, position);
                }
                for (List<AwaitOffset> reached : model.headMap(position, true).values()) {
                    for (AwaitOffset op : reached) {
                        assertThat(op.isCompleted()).as("offset %d at position %d", op.offset, position).isTrue();
                    }
                }
                model.headMap(position, true).clear();
            } else {
                timer.advanceClock(random.nextInt(50));
            }
            pending.removeIf(DelayedOperation::isCompleted);
            if (step % 500 == 0) {
                purgatory.engine().checkInvariants();
                assertThat(purgatory.numDelayed()).isEqualTo(pending.size());
            }
        }
        purgatory.engine().checkInvariants();
        assertThat(purgatory.numDelayed()).isEqualTo(pending.size());
    }
}
