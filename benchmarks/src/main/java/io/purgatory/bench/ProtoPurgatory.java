package io.purgatory.bench;

import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.SystemTimerReaper;
import io.purgatory.timer.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Workloads 1 and 5's prototype: the cheapest design found that keeps the two things the floor
 * drops and a purgatory must have, a timer (this project's {@link SystemTimer}, driven by its
 * reaper, the operation its own timer entry) and eager removal (a settled operation has left
 * every key's list and the timer by the time the call that settled it returns). Nothing else of
 * the library's promises: no gauges ({@link #watched()} and {@link #numDelayed()} answer -1), no
 * error handler, no claim around a try (two threads may try one operation at once: completion is
 * one CAS), tries under the checked key's lock, callbacks on whichever thread settles. It measures
 * what a timer and eager removal cost at best; it is not a design for a library.
 */
final class ProtoPurgatory implements PurgatoryUnderTest {

    /*
     * Implementation notes.
     *
     * A key's operations are an array in no order (KeyList), guarded by the list's monitor. An
     * operation keeps, for each of its keys, the list and its index in it, so removing it is a
     * swap with the array's last element: O(1), one other operation written, no node allocated.
     * A key's list stays mapped once empty (the library keeps a few for reuse and sweeps the
     * rest; with workload 1's thousand busy keys that comes to the same).
     * A check walks its key's array from the end under the lock and removes what it completes in
     * place (the swap brings in an element already visited); once the lock is released it unlinks
     * them from their other keys, one lock at a time (no thread ever holds two), cancels their
     * timer entries and runs their callbacks.
     *
     * (PY1) The operation's state word: SUBMITTING while the submitter links it, WATCHED once it
     *      has, DONE once settled (one CAS, exactly once). A settle whose CAS finds SUBMITTING
     *      leaves the clean-up to the submitter, whose closing CAS (SUBMITTING to WATCHED) then
     *      fails; one that finds WATCHED cleans up itself, and sees every link, since the
     *      submitter's CAS came after them.
     * (PY2) No lost wake-up: a submission links under each key's lock, then tries again; a check
     *      reads the list under the lock after the caller's state change.
     */

    private final ConcurrentHashMap<BenchKey, KeyList> lists = new ConcurrentHashMap<>();
    private final SystemTimer timer;
    private final SystemTimerReaper reaper;

    ProtoPurgatory(String name) {
        this.timer = new SystemTimer(name);
        this.reaper = SystemTimerReaper.start("ExpirationReaper-" + name, timer);
    }

    @Override
    public Impl impl() {
        return Impl.PROTO;
    }

    @Override
    public Completable newOperation(OpBody body, long delayMs) {
        return new Op(body, delayMs);
    }

    @Override
    public boolean tryCompleteElseWatch(Completable operation, List<BenchKey> keys) {
        Op op = (Op) operation;
        if (keys.size() > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("the prototype watches at most 127 keys: " + keys.size());
        }
        if (op.tryOnce()) { // 1. try
            return true;
        }
        if (!op.startSubmission(keys.size())) {
            return false; // settled meanwhile (workload 5 forces some before they are submitted)
        }
        for (int i = 0; i < keys.size(); i++) { // 2. watch
            watch(op, i, keys.get(i));
        }
        boolean completedHere = op.tryOnce(); // 3. try again (PY2)
        if (!op.isCompleted()) {
            timer.add(op); // 4. the timeout
        }
        if (!op.endSubmission()) { // settled since it started: its clean-up is ours (PY1)
            op.unlinkAll(null);
            op.cancel();
        }
        return completedHere;
    }

    private void watch(Op op, int index, BenchKey key) {
        KeyList list = lists.get(key);
        if (list == null) {
            KeyList created = new KeyList();
            KeyList raced = lists.putIfAbsent(key, created);
            list = raced == null ? created : raced;
        }
        list.add(op, index);
    }

    @Override
    public int checkAndComplete(BenchKey key) {
        KeyList list = lists.get(key);
        if (list == null) {
            return 0;
        }
        int completed = 0;
        Op op = list.tryAll();
        while (op != null) {
            Op next = op.nextCompleted;
            op.nextCompleted = null;
            op.finish(false, list);
            completed++;
            op = next;
        }
        return completed;
    }

    @Override
    public int watched() {
        return -1;
    }

    /** Entries on every key's list (tests: 0 once every operation settled, in quiescence). */
    int linkedEntries() {
        int n = 0;
        for (KeyList list : lists.values()) {
            n += list.size();
        }
        return n;
    }

    @Override
    public int numDelayed() {
        return -1;
    }

    @Override
    public void close() {
        reaper.close(); // stops the reaper, then closes the timer
    }

    /**
     * One key's operations: an array in no order, and beside each the index of this key among the
     * operation's keys, so that moving an entry never reads the operation's own arrays.
     */
    static final class KeyList {
        private Op[] ops = new Op[8];
        private byte[] keyIndex = new byte[8];
        private int size;

        synchronized int size() {
            return size;
        }

        /** Appends {@code op} as its {@code index}-th key's entry. */
        synchronized void add(Op op, int index) {
            if (size == ops.length) {
                ops = Arrays.copyOf(ops, 2 * size);
                keyIndex = Arrays.copyOf(keyIndex, 2 * size);
            }
            op.lists[index] = this;
            op.slots[index] = size;
            keyIndex[size] = (byte) index;
            ops[size++] = op;
        }

        /**
         * Removes {@code op}, its {@code index}-th key's entry here, if it is still linked: it is
         * iff its slot holds it, since a removed operation never comes back.
         */
        synchronized void remove(Op op, int index) {
            int slot = op.slots[index];
            if (slot < size && ops[slot] == op) {
                removeAt(slot);
            }
        }

        /**
         * Tries each operation from the last; removes those it completes and returns them chained
         * by {@code nextCompleted}, their callbacks and other keys left to the caller.
         */
        synchronized Op tryAll() {
            Op completed = null;
            for (int i = size - 1; i >= 0; i--) {
                Op op = ops[i];
                if (!op.isCompleted() && op.body.canComplete() && op.markDone()) {
                    removeAt(i); // brings in the last, already visited
                    op.nextCompleted = completed;
                    completed = op;
                }
            }
            return completed;
        }

        private void removeAt(int slot) {
            int last = --size;
            Op moved = ops[last];
            ops[last] = null;
            if (slot != last) {
                ops[slot] = moved;
                keyIndex[slot] = keyIndex[last];
                moved.slots[keyIndex[last]] = slot;
            }
            if (ops.length > 64 && size < ops.length / 4) {
                ops = Arrays.copyOf(ops, ops.length / 2);
                keyIndex = Arrays.copyOf(keyIndex, ops.length);
            }
        }
    }

    /** The operation: a body, its state word (PY1), and its place on each of its keys. */
    static final class Op extends TimerTask implements Completable {
        private static final int SUBMITTING = 1;
        private static final int WATCHED = 2;
        private static final int DONE = 4;
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Op.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final OpBody body;
        private volatile int state;
        /** Per key: its list and this operation's index there, under that list's lock. */
        KeyList[] lists;
        int[] slots;
        /** Chains the operations one check completed, until it finishes them. */
        Op nextCompleted;

        Op(OpBody body, long delayMs) {
            super(delayMs);
            this.body = body;
        }

        boolean startSubmission(int keys) {
            lists = new KeyList[keys];
            slots = new int[keys];
            return STATE.compareAndSet(this, 0, SUBMITTING);
        }

        boolean endSubmission() {
            return STATE.compareAndSet(this, SUBMITTING, WATCHED);
        }

        /** The try: the condition, then the settle; true iff this call completed it. */
        boolean tryOnce() {
            return body.canComplete() && settle(false);
        }

        /** The CAS that settles it (PY1); true iff it won. */
        boolean markDone() {
            for (;;) {
                int s = state;
                if ((s & DONE) != 0) {
                    return false;
                }
                if (STATE.compareAndSet(this, s, s | DONE)) {
                    return true;
                }
            }
        }

        boolean settle(boolean expired) {
            if (!markDone()) {
                return false;
            }
            finish(expired, null);
            return true;
        }

        /**
         * After the winning CAS: the clean-up unless the submitter does it (PY1), then the
         * callbacks; {@code removed} is a list the caller has already taken it off, or null.
         */
        void finish(boolean expired, KeyList removed) {
            if ((state & WATCHED) != 0) {
                unlinkAll(removed);
                if (!expired) {
                    cancel(); // the timer entry
                }
            }
            body.completed();
            if (expired) {
                body.expired();
            }
        }

        /** Removes it from each of its keys' lists but {@code removed}, one lock at a time. */
        void unlinkAll(KeyList removed) {
            for (int i = 0; i < lists.length; i++) {
                if (lists[i] != removed) {
                    lists[i].remove(this, i);
                }
            }
        }

        @Override
        public void run() {
            settle(true);
        }

        @Override
        public boolean forceComplete() {
            return settle(false);
        }

        @Override
        public boolean isCompleted() {
            return (state & DONE) != 0;
        }
    }
}
