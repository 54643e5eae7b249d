package io.purgatory.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The least a purgatory must do for workload 1 (acks), as a yardstick: what is left of the
 * comparison once timers, gauges and eager removal are taken away. Not a purgatory anyone should
 * use:
 * <ul>
 *   <li>no timer: operations never expire (the workload's never do);
 *   <li>no counters or gauges ({@link #watched()} and {@link #numDelayed()} answer -1);
 *   <li>a completed operation leaves a key's list only when that key is next checked (Kafka's
 *       lingering entries, without its purge);
 *   <li>{@code checkAndComplete} tries the operations while holding the key's lock, so the
 *       callbacks of the operations it completes run under that lock.
 * </ul>
 * What it keeps: each key's operations in an array list under a lock, every operation of the
 * checked key tried under its own monitor, exactly-once completion, and no lost wake-up (an
 * operation is tried again after it is on its lists, as in Kafka's {@code tryCompleteElseWatch}).
 *
 * <p>It is one simple design, a yardstick rather than a bound. Some of its choices cost it time: a
 * check waits for an operation's monitor while the producer holds it across the three appends,
 * and the key's lock is held for the whole walk, callbacks included. Its two lock orders
 * (operation then list on submission, list then operation on a check) are safe only for one
 * submitting and one checking thread with distinct keys, as workload 1 runs it.
 */
final class FloorPurgatory implements PurgatoryUnderTest {

    private final ConcurrentHashMap<BenchKey, ArrayList<Op>> lists = new ConcurrentHashMap<>();

    @Override
    public Impl impl() {
        return Impl.FLOOR;
    }

    @Override
    public Completable newOperation(OpBody body, long delayMs) {
        return new Op(body);
    }

    @Override
    public boolean tryCompleteElseWatch(Completable operation, List<BenchKey> keys) {
        Op op = (Op) operation;
        boolean completedHere;
        synchronized (op) {
            completedHere = op.tryComplete();
            if (!completedHere && !op.done) {
                for (BenchKey key : keys) {
                    ArrayList<Op> list = lists.computeIfAbsent(key, k -> new ArrayList<>());
                    synchronized (list) {
                        list.add(op);
                    }
                }
                completedHere = op.tryComplete();
            }
        }
        if (completedHere) {
            op.body.completed();
        }
        return completedHere;
    }

    @Override
    public int checkAndComplete(BenchKey key) {
        ArrayList<Op> list = lists.get(key);
        if (list == null) {
            return 0;
        }
        int completed = 0;
        synchronized (list) {
            int kept = 0;
            int n = list.size();
            for (int i = 0; i < n; i++) {
                Op op = list.get(i);
                boolean completedHere;
                boolean pending;
                synchronized (op) {
                    completedHere = op.tryComplete();
                    pending = !op.done;
                }
                if (completedHere) {
                    completed++;
                    op.body.completed();
                } else if (pending) {
                    list.set(kept++, op);
                }
            }
            list.subList(kept, n).clear();
        }
        return completed;
    }

    @Override
    public int watched() {
        return -1;
    }

    @Override
    public int numDelayed() {
        return -1;
    }

    @Override
    public void close() {
    }

    /** A body and a flag, guarded by the operation's monitor. */
    static final class Op implements Completable {
        final OpBody body;
        private boolean done;

        Op(OpBody body) {
            this.body = body;
        }

        /** Caller holds the monitor; true iff this call completed the operation. */
        private boolean tryComplete() {
            if (done || !body.canComplete()) {
                return false;
            }
            done = true;
            return true;
        }

        @Override
        public synchronized boolean isCompleted() {
            return done;
        }

        @Override
        public boolean forceComplete() {
            synchronized (this) {
                if (done) {
                    return false;
                }
                done = true;
            }
            body.completed();
            return true;
        }
    }
}
