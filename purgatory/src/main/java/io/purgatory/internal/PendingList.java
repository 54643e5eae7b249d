package io.purgatory.internal;

import io.purgatory.internal.Operation.Watching;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The pending operations of an engine, oldest (or soonest due) first, at most {@code limit} of
 * them: for an operator's list. Reads one watcher list at a time under its lock, held while it
 * walks that list's keys, and calls no user code. Allocates the kept candidates only: three
 * arrays of {@code limit} and what it returns.
 */
public final class PendingList {

    /*
     * Implementation notes.
     *
     * A max-heap keeps the best `limit` candidates seen, by watch time (oldest first) or by due
     * time (watch time + delay). A watcher list's keys are walked in the order they became
     * non-empty, each with a lower bound of its operations' watch times (Watchers K8): once that
     * bound (plus the engine's least delay, for due order) is no better than the worst kept,
     * no later key of the list can add a candidate. Within a key, operations watching it alone are
     * in watch order, so the walk of that list stops the same way for oldest first. An operation
     * on several keys is taken from the first node of its chain only, so it is counted once.
     */

    private final boolean byDue;
    private final long minDelayNanos;
    private final long nowNanos;
    private final Operation[] ops;
    private final Watching[] places;
    private final long[] sortKeys;
    private final long[] watchTimes;
    private int size;

    private PendingList(int limit, boolean byDue, long minDelayNanos, long nowNanos) {
        this.byDue = byDue;
        this.minDelayNanos = minDelayNanos;
        this.nowNanos = nowNanos;
        this.ops = new Operation[limit];
        this.places = new Watching[limit];
        this.sortKeys = new long[limit];
        this.watchTimes = new long[limit];
    }

    /**
     * One pending operation as read: its keys, the position it waits for (or null), how long ago
     * it was watched, and whether a check tried it.
     */
    public record Pending(Operation op, List<Object> keys, Long position, long ageNanos, boolean tried) {
    }

    /**
     * The {@code limit} oldest (or soonest due, if {@code byDue}) pending operations of
     * {@code engine}, in that order.
     *
     * @throws IllegalStateException if the engine's clock threw: the ages cannot be read
     */
    public static List<Pending> of(Engine engine, int limit, boolean byDue) {
        long now = engine.nowNanos();
        if (now == UserCode.NO_TIME) {
            throw new IllegalStateException("purgatory '" + engine.name() + "': its clock threw (logged), so the"
                    + " ages of its pending operations cannot be read");
        }
        long minDelayMs = engine.admission().minDelayMs();
        long minDelayNanos = minDelayMs >= Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE / 2 : minDelayMs * 1_000_000;
        PendingList list = new PendingList(limit, byDue, Math.max(0L, minDelayNanos), now);
        for (WatcherList watcherList : engine.lists()) {
            watcherList.collect(list);
        }
        return list.sorted();
    }

    /** Walks the active keys from {@code first} (under their watcher list's lock). */
    void walk(Watchers first) {
        for (Watchers w = first; w != null; w = w.activeNext) {
            long bound = byDue ? w.activatedNanos + minDelayNanos : w.activatedNanos;
            if (isFull() && Long.compare(bound, sortKeys[0]) >= 0) {
                return; // (Watchers K8): no later key has an operation to keep
            }
            w.offerPending(this);
        }
    }

    /**
     * Offers {@code op}, watching at {@code place}, its key's activation time {@code floorNanos};
     * returns false when no later operation of the same list in watch order can be kept.
     */
    boolean offer(Operation op, Watching place, long floorNanos) {
        long s = op.state;
        long watched = (s & OperationState.TIMED) != 0 ? nowNanos - OperationState.watchedNanos(s, nowNanos)
                : floorNanos;
        long key = byDue ? dueNanos(op, watched) : watched;
        if (isFull()) {
            if (Long.compare(key, sortKeys[0]) >= 0) {
                return byDue; // in watch order, a later one is no older
            }
            replaceTop(op, place, key, watched);
        } else {
            add(op, place, key, watched);
        }
        return true;
    }

    private static long dueNanos(Operation op, long watched) {
        long delayMs = Math.max(0L, op.delayMs());
        return delayMs >= Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : watched + delayMs * 1_000_000;
    }

    private boolean isFull() {
        return size == ops.length;
    }

    private void add(Operation op, Watching place, long key, long watched) {
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (Long.compare(sortKeys[parent], key) >= 0) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        set(i, op, place, key, watched);
    }

    private void replaceTop(Operation op, Watching place, long key, long watched) {
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < size && Long.compare(sortKeys[child + 1], sortKeys[child]) > 0) {
                child++;
            }
            if (Long.compare(key, sortKeys[child]) >= 0) {
                break;
            }
            move(child, i);
            i = child;
        }
        set(i, op, place, key, watched);
    }

    private void move(int from, int to) {
        set(to, ops[from], places[from], sortKeys[from], watchTimes[from]);
    }

    private void set(int i, Operation op, Watching place, long key, long watched) {
        ops[i] = op;
        places[i] = place;
        sortKeys[i] = key;
        watchTimes[i] = watched;
    }

    private List<Pending> sorted() {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(sortKeys[a], sortKeys[b]));
        List<Pending> out = new ArrayList<>(size);
        for (int i : order) {
            Watching place = places[i];
            out.add(new Pending(ops[i], place.keys(), place.position(), Math.max(0L, nowNanos - watchTimes[i]),
                    OperationState.wasChecked(ops[i])));
        }
        return out;
    }
}
