package io.purgatory.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.internal.Operation.Owner;
import io.purgatory.internal.Watchers.WatchNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One part of a purgatory's key space (the builder's {@code shards} sets how many): the keys
 * hashed to it, each with its {@link Watchers}. Watching and unwatching an operation happen here,
 * under this list's lock; a visit copies a key's operations out under the lock and hands them to
 * its visitor with no lock held. Keys follow the JDK maps' contract: {@code hashCode} and
 * {@code equals} consistent while in use, and not calling back into the purgatory.
 */
final class WatcherList {

    /** Emptied key lists a watcher list keeps for reuse (K5). */
    static final int MAX_EMPTY_KEPT = 16;
    /** A visit's copy of at most this many operations goes back to its thread's buffer, for the next visit (K6). */
    private static final int MAX_COPY_REUSED = 256;

    /*
     * Implementation notes.
     *
     * (K4) The lock is this object's monitor; it is held only around map and list changes and
     *      copies, never while an operation's method runs, and it is released even when the
     *      stack runs out inside (a monitor is, unlike a lock whose unlock is a call).
     * (K5) A key is in the map iff its Watchers is non-empty, or it is one of the emptied lists
     *      kept for reuse (a hot key then costs no map insertion and removal per operation):
     *      at most MAX_EMPTY_KEPT, plus any whose removal threw (a key that broke the map's
     *      contract). purge() sweeps the empty ones by the map's iterator, calling no key.
     * (K6) No lost wake-up: a submission links under this lock and then tries again; a check
     *      copies the list under it. If the check's copy comes first, the caller's state change
     *      happens-before the submission's second try; otherwise the copy holds the operation.
     *      A check tries exactly the operations its copy holds: those watched before it began.
     */

    @GuardedBy("this")
    private final Map<Object, Watchers> watchersByKey = new HashMap<>();
    /** Emptied lists kept in the map (K5). */
    @GuardedBy("this")
    private int emptyKept;
    /** The engine whose keys these are: the owner of every operation linked here (OperationState O6). */
    private final Owner owner;
    private final PurgatoryCounters counters;
    /** The time keys become non-empty at (Watchers K8). */
    private final java.util.function.LongSupplier clock;
    /**
     * The non-empty keys, in the order they became non-empty (Watchers K8): a ring through their
     * active links that starts and ends at this keyless list, never in the map.
     */
    @GuardedBy("this")
    private final Watchers active = new Watchers(null, this);

    WatcherList(Owner owner, PurgatoryCounters counters, java.util.function.LongSupplier clock) {
        this.owner = owner;
        this.counters = counters;
        this.clock = clock;
        active.activePrev = active;
        active.activeNext = active;
    }

    /**
     * Links {@code op} on {@code key}, its only key; the caller holds its submission's claim.
     * Returns the time the key became non-empty if this made it so (K8), else {@code UserCode.NO_TIME}.
     */
    synchronized long watch(Operation op, Object key) {
        Watchers watchers = listFor(key);
        long activated = activate(watchers);
        watchers.link(op);
        return activated;
    }

    /** Links a node of {@code op} on {@code key}, one of its keys, after its nodes so far ({@code chain}). */
    synchronized WatchNode watch(Operation op, Object key, WatchNode chain) {
        Watchers watchers = listFor(key);
        activate(watchers);
        return watchers.linkNode(op, chain);
    }

    /** Links {@code op} on {@code key} to wait until the key's position reaches {@code position} (K7). */
    synchronized WatchNode watchAt(Operation op, Object key, long position, WatchNode chain) {
        Watchers watchers = listFor(key);
        activate(watchers);
        return watchers.linkAt(op, position, chain);
    }

    /**
     * Puts {@code watchers} at the end of the active keys if it is empty, with the time now (K8),
     * and returns that time; else {@code UserCode.NO_TIME}.
     */
    @GuardedBy("this")
    private long activate(Watchers watchers) {
        if (!watchers.isEmpty()) {
            return UserCode.NO_TIME;
        }
        Watchers last = active.activePrev;
        long now = clock.getAsLong();
        watchers.activatedNanos = last != active && now - last.activatedNanos < 0 ? last.activatedNanos : now;
        watchers.activePrev = last;
        watchers.activeNext = active;
        last.activeNext = watchers;
        active.activePrev = watchers;
        return now == UserCode.NO_TIME ? UserCode.NO_TIME : watchers.activatedNanos;
    }

    /** Takes {@code watchers}, emptied, off the active keys (K8). */
    @GuardedBy("this")
    private void deactivate(Watchers watchers) {
        watchers.activePrev.activeNext = watchers.activeNext;
        watchers.activeNext.activePrev = watchers.activePrev;
        watchers.activePrev = null;
        watchers.activeNext = null;
    }

    /** Offers this list's pending operations to {@code pending}, under the lock (Watchers K8). */
    synchronized void collect(PendingList pending) {
        pending.walk(active);
    }

    /** The key's list, created or reused (K5). */
    @GuardedBy("this")
    private Watchers listFor(Object key) {
        Watchers watchers = watchersByKey.get(key);
        if (watchers == null) {
            watchers = new Watchers(key, this);
            watchersByKey.put(key, watchers);
            counters.keyListsChanged(1, 0);
        } else if (watchers.isEmpty()) { // a kept list, reused (K5)
            emptyKept--;
            counters.keyListsChanged(0, -1);
        }
        return watchers;
    }

    /**
     * Unlinks {@code op} from {@code watchers}, its one key's list, or if {@code node} is not null
     * that node from its key's list {@code watchers}; true iff it was linked. A list it empties is
     * kept for reuse, or its key removed (K5).
     */
    synchronized boolean unlink(Watchers watchers, Operation op, WatchNode node) {
        boolean linked = node == null ? watchers.unlink(op) : watchers.unlink(node);
        if (!linked || !watchers.isEmpty()) {
            return linked;
        }
        deactivate(watchers);
        boolean removed = false;
        if (emptyKept >= MAX_EMPTY_KEPT) {
            try {
                removed = watchersByKey.remove(watchers.key, watchers);
            } catch (RuntimeException | Error brokenKey) {
                // its hashCode or equals broke the contract: kept, as if not found
            }
        }
        if (removed) {
            counters.keyListsChanged(-1, 0);
        } else { // kept; if not found by its key, until purge() sweeps it by the iterator (K5)
            emptyKept++;
            counters.keyListsChanged(0, 1);
        }
        return true;
    }

    /**
     * Hands {@code event} to {@code visitor} with each operation watching {@code key} when the call
     * starts (K6), as {@code mode} selects them at {@code position} (K7), with no lock held (K4);
     * returns how many visits returned true. Every operation copied is visited: a visitor that
     * throws (a library fault; user code is contained by UserCode) does not stop the others, and
     * the first such failure is rethrown once all were visited.
     */
    int visit(Object key, Visit mode, long position, Object event, Visitor visitor) {
        InProgress progress = InProgress.current();
        Operation[] buffer = progress.copies; // null while a visit further up this thread's stack holds it
        Operation[] ops;
        int n;
        synchronized (this) {
            Watchers watchers = watchersByKey.get(key);
            n = watchers == null ? 0 : watchers.count(mode, position);
            if (n == 0) {
                return 0;
            }
            ops = buffer != null && buffer.length >= n ? buffer : new Operation[n];
            watchers.take(mode, position, ops);
        }
        progress.copies = null; // a nested visit (from a callback) copies into an array of its own
        int settled = 0;
        Throwable failure = null;
        for (int i = 0; i < n; i++) {
            try {
                if (visitor.visit(ops[i], event)) {
                    settled++;
                }
            } catch (Throwable visitFailure) { // nothing else in this loop can throw: no finally needed
                failure = failure == null ? visitFailure : failure;
            }
        }
        Arrays.fill(ops, 0, n, null); // the copy holds no operation once visited
        if (buffer != null) {
            progress.copies = n <= MAX_COPY_REUSED ? ops : buffer;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure != null) {
            throw (RuntimeException) failure; // a visitor throws nothing checked
        }
        return settled;
    }

    /** Cancels every submitted operation watching {@code key} (Engine N2); returns those this call cancelled. */
    List<Operation> cancelAll(Object key) {
        List<Operation> cancelled = new ArrayList<>();
        visit(key, Visit.ALL, 0L, null,
                (op, unused) -> OperationState.settleIfSubmitted(op, OperationState.CANCELLED) && cancelled.add(op));
        return cancelled;
    }

    /** Every operation linked here (an operation on k of this list's keys k times). */
    synchronized List<Operation> operations() {
        List<Operation> all = new ArrayList<>();
        for (Watchers watchers : watchersByKey.values()) {
            Operation[] ops = new Operation[watchers.count(Visit.ALL, 0)];
            watchers.take(Visit.ALL, 0, ops);
            all.addAll(Arrays.asList(ops));
        }
        return all;
    }

    /** Removes every empty key list, by the map's iterator (K5). */
    synchronized void purge() {
        for (Iterator<Watchers> it = watchersByKey.values().iterator(); it.hasNext(); ) {
            if (it.next().isEmpty()) {
                it.remove(); // by the stored hash: calls no key
                counters.keyListsChanged(-1, -1);
            }
        }
        emptyKept = 0;
    }

    /**
     * Checks each list's links, (K5) and (K8) (tests, in quiescence); adds its linked elements to
     * {@code totals[0]} and its non-empty keys to {@code totals[1]}.
     */
    synchronized void checkInvariants(long[] totals) {
        int keys = 0;
        for (Watchers watchers : watchersByKey.values()) {
            int count = watchers.checkLinks(owner);
            totals[0] += count;
            keys += count > 0 ? 1 : 0;
        }
        if (watchersByKey.size() - keys != emptyKept) {
            throw new IllegalStateException("(K5) " + (watchersByKey.size() - keys) + " kept empty lists, counted "
                    + emptyKept);
        }
        totals[1] += keys;
        Watchers previous = active;
        for (Watchers w = active.activeNext; w != active; w = w.activeNext) {
            if (w.isEmpty() || w.activePrev != previous
                    || (previous != active && w.activatedNanos - previous.activatedNanos < 0)) {
                throw new IllegalStateException("(K8) broken list of active keys at " + w.key);
            }
            previous = w;
            keys--;
        }
        if (keys != 0 || previous != active.activePrev) {
            throw new IllegalStateException("(K8) the active keys are " + keys + " fewer than the non-empty ones");
        }
    }
}
