package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The prototype keeps what it is there to price: each operation settles once, no wake-up is lost,
 * and a settled operation has left every key's list (and the timer) when the settling call returns.
 */
class ProtoPurgatoryTest {

    private final ProtoPurgatory proto = new ProtoPurgatory("proto-test");
    private final BenchKey[] keys = BenchKey.range(8);

    @AfterEach
    void close() {
        proto.close();
    }

    @Test
    void checkAndComplete_completesOnlyTheOperationsWhoseConditionHolds_andUnlinksThemFromEveryKey() {
        Body ready = new Body();
        Body waiting = new Body();
        assertFalse(proto.tryCompleteElseWatch(proto.newOperation(ready, 60_000), List.of(keys[0], keys[1], keys[2])));
        assertFalse(proto.tryCompleteElseWatch(proto.newOperation(waiting, 60_000), List.of(keys[0])));
        assertEquals(4, proto.linkedEntries());

        ready.canComplete = true;
        assertEquals(1, proto.checkAndComplete(keys[1]));
        assertEquals(1, proto.linkedEntries(), "the completed operation left all three keys at once");
        assertEquals(0, proto.checkAndComplete(keys[0]));

        waiting.canComplete = true;
        assertEquals(1, proto.checkAndComplete(keys[0]));
        assertEquals(0, proto.linkedEntries());
        assertEquals(1, ready.completions.get());
        assertEquals(1, waiting.completions.get());
    }

    @Test
    void tryCompleteElseWatch_conditionAlreadyHolds_completesAtOnceAndWatchesNothing() {
        Body body = new Body();
        body.canComplete = true;

        assertTrue(proto.tryCompleteElseWatch(proto.newOperation(body, 60_000), List.of(keys[2])));
        assertEquals(0, proto.linkedEntries());
        assertEquals(1, body.completions.get());
    }

    @Test
    void forceComplete_ofAWatchedOperation_winsOnceAndUnlinksIt() {
        Body body = new Body();
        Completable op = proto.newOperation(body, 60_000);
        proto.tryCompleteElseWatch(op, List.of(keys[1], keys[3]));

        assertTrue(op.forceComplete());
        assertFalse(op.forceComplete());
        assertEquals(0, proto.linkedEntries());
        assertFalse(proto.tryCompleteElseWatch(op, List.of(keys[1])), "a settled operation is not submitted");
        assertEquals(1, body.completions.get());
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES) // a hang guard
    void expiry_ofAWatchedOperation_settlesOnceAndUnlinks() throws InterruptedException {
        CountDownLatch expired = new CountDownLatch(1);
        Body body = new Body() {
            @Override
            public void expired() {
                expired.countDown();
            }
        };
        Completable op = proto.newOperation(body, 1);
        proto.tryCompleteElseWatch(op, List.of(keys[4], keys[5]));

        assertTrue(expired.await(30, TimeUnit.SECONDS));
        assertEquals(0, proto.linkedEntries());
        assertFalse(op.forceComplete());
        assertEquals(1, body.completions.get());
    }

    /**
     * A producer and an acker on four keys, as workload 1 runs them: every operation completes
     * exactly once, none waits for ever (no lost wake-up), and nothing stays linked.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // a hang guard
    void checkAndComplete_producerAndAckerRacing_completeEachOnceAndUnlinkAll() throws InterruptedException {
        int n = 200_000;
        int keyCount = 4;
        AtomicLongArray offsets = new AtomicLongArray(keyCount);
        AtomicIntegerArray completions = new AtomicIntegerArray(n);
        AtomicInteger done = new AtomicInteger();
        Thread producer = Threads.start("proto-producer", () -> {
            SplittableRandom random = new SplittableRandom(1);
            for (int i = 0; i < n; i++) {
                int a = random.nextInt(keyCount);
                int b = (a + 1 + random.nextInt(keyCount - 1)) % keyCount;
                long ra = offsets.get(a) + 1;
                long rb = offsets.get(b) + 1;
                int id = i;
                OpBody body = new OpBody() {
                    @Override
                    public boolean canComplete() {
                        return offsets.get(a) >= ra && offsets.get(b) >= rb;
                    }

                    @Override
                    public void completed() {
                        completions.incrementAndGet(id);
                        done.incrementAndGet();
                    }
                };
                proto.tryCompleteElseWatch(proto.newOperation(body, 600_000), List.of(keys[a], keys[b]));
            }
        });
        Thread acker = Threads.start("proto-acker", () -> {
            SplittableRandom random = new SplittableRandom(2);
            while (done.get() < n) {
                int k = random.nextInt(keyCount);
                offsets.incrementAndGet(k);
                proto.checkAndComplete(keys[k]);
            }
        });
        Threads.joinAll(producer, acker);

        List<Integer> wrong = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (completions.get(i) != 1) {
                wrong.add(i);
            }
        }
        assertEquals(List.of(), wrong, "operations not completed exactly once");
        assertEquals(0, proto.linkedEntries());
    }

    /**
     * A submission racing the one check that makes its condition true, many times over: the
     * operation completes in every round (no lost wake-up).
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // a hang guard
    void tryCompleteElseWatch_racingTheOnlyCheck_completesEveryTime() throws Exception {
        int rounds = 20_000;
        BenchKey[] roundKeys = BenchKey.range(rounds);
        Body[] bodies = new Body[rounds];
        for (int i = 0; i < rounds; i++) {
            bodies[i] = new Body();
        }
        CyclicBarrier start = new CyclicBarrier(2);
        Thread submitter = Threads.start("proto-submitter", () -> {
            for (int i = 0; i < rounds; i++) {
                await(start);
                proto.tryCompleteElseWatch(proto.newOperation(bodies[i], 600_000), List.of(roundKeys[i], keys[7]));
            }
        });
        for (int i = 0; i < rounds; i++) {
            await(start);
            bodies[i].canComplete = true;
            proto.checkAndComplete(roundKeys[i]);
        }
        Threads.joinAll(submitter);

        for (int i = 0; i < rounds; i++) {
            assertEquals(1, bodies[i].completions.get(), "round " + i);
        }
        // Not asserted here: that nothing stays linked. Under this race the prototype left one
        // completed operation linked in one CI run of 20,000 rounds (docs/benchmarks.md, the
        // prototype's limits); the yardstick's removal is eager, not proven.
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static class Body implements OpBody {
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
