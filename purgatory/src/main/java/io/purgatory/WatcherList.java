package io.purgatory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One shard of a purgatory's key space: the keys hashed to it, each with its {@link Watchers}.
 * Every structural change happens under the shard's lock; {@link #checkAndComplete} holds it only
 * to read a key's head and tail, and calls operations with no lock held.
 */
final class WatcherList {

    /** Emptied key lists a shard keeps for reuse (S1). */
    static final int MAX_EMPTY_KEPT = 16;

    /*
     * Implementation notes.
     *
     * (S1) A key is in the map iff its Watchers is non-empty, or it is one of at most
     *      MAX_EMPTY_KEPT emptied lists kept for reuse (emptyKept counts them: a hot key then costs
     *      no map insertion and removal per operation), or a "lingering" empty entry whose removal
     *      failed because the key's hashCode or equals threw or changed. purge() sweeps both
     *      kinds. The keys gauge counts the non-empty lists only.
     * (S2) Lock order: an operation's monitor, then a shard lock. Nothing is called on an
     *      operation while a shard lock is held.
     * (S3) Happens-before for no lost wake-up: tryCompleteElseWatch links under this lock and then
     *      tries again; checkAndComplete takes this lock before reading the list. If the checker's
     *      lock comes first, its caller's state changes happen-before the second try; otherwise
     *      the checker sees the new node.
     */

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Object, Watchers> watchersByKey = new HashMap<>();
    /** Emptied lists kept in the map for reuse (S1); guarded by lock. */
    private int emptyKept;
    private final PurgatoryCounters counters;
    /** The purgatory this shard belongs to (how an operation finds its owner: DelayedOperation D7). */
    final DelayedOperationPurgatory<?> purgatory;

    WatcherList(DelayedOperationPurgatory<?> purgatory, PurgatoryCounters counters) {
        this.purgatory = purgatory;
        this.counters = counters;
    }

    /**
     * Links {@code operation} on {@code key}: as its own node if it is on no list yet (its
     * watchers is still the purgatory's {@code unwatched} marker), else with a new WatchNode
     * chained to its others. The caller holds the operation's monitor (S2).
     */
    void watch(DelayedOperation operation, Object key, Watchers unwatched) {
        lock.lock();
        try {
            Watchers watchers = watchersByKey.get(key);
            if (watchers == null) {
                watchers = new Watchers(key, this);
                watchersByKey.put(key, watchers);
                counters.mappedKeys.increment(); // (PurgatoryCounters C3)
            } else if (watchers.isEmpty()) { // a kept or lingering list, reused (S1)
                if (watchers.lingering) {
                    watchers.lingering = false;
                    counters.lingeringKeys.decrement();
                } else {
                    emptyKept--;
                }
                counters.emptyKeys.decrement(); // (C3)
            }
            if (operation.watchers == unwatched) {
                operation.watchers = watchers;
                watchers.append(operation);
            } else {
                WatchNode node = new WatchNode(operation, watchers, operation.moreNodes);
                operation.moreNodes = node;
                watchers.append(node);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Unlinks {@code node} (an operation or a WatchNode) from {@code watchers}, dropping the key if
     * that left it empty (S1). Returns true iff it was linked; the caller counts (watched gauge).
     */
    boolean unwatch(Object node, Watchers watchers) {
        lock.lock();
        try {
            if (!watchers.unlink(node)) {
                return false;
            }
            if (watchers.isEmpty()) {
                if (emptyKept < MAX_EMPTY_KEPT) { // keep it for the key's next operation (S1)
                    emptyKept++;
                    counters.emptyKeys.increment(); // (C3)
                } else {
                    removeKey(watchers);
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void removeKey(Watchers watchers) {
        boolean removed;
        try {
            removed = watchersByKey.remove(watchers.key, watchers);
        } catch (RuntimeException keyFailure) {
            removed = false;
        }
        if (removed) {
            counters.mappedKeys.decrement(); // (C3)
        } else {
            watchers.lingering = true;
            counters.emptyKeys.increment(); // (S1), (C3): still mapped, and empty
            counters.lingeringKeys.increment();
        }
    }

    /**
     * Tries every operation watching {@code key} when the call starts; returns how many this
     * call completed. Operations are called with no lock held (S2, S3).
     */
    int checkAndComplete(Object key) {
        Object first;
        Object last;
        lock.lock();
        try {
            Watchers watchers = watchersByKey.get(key);
            if (watchers == null) {
                return 0;
            }
            first = watchers.head;
            last = watchers.tail;
        } finally {
            lock.unlock();
        }
        int completed = 0;
        DelayedOperation.TryScope scope = DelayedOperation.tryScope();
        for (Object node = first; node != null; node = node == last ? null : Watchers.next(node)) {
            if (Watchers.operation(node).safeTryComplete(scope)) {
                completed++;
            }
        }
        return completed;
    }

    /** The pending operations watching {@code key}, in watch order (a copy). */
    List<DelayedOperation> operationsOn(Object key) {
        lock.lock();
        try {
            Watchers watchers = watchersByKey.get(key);
            List<DelayedOperation> operations = new ArrayList<>(watchers == null ? 0 : watchers.size);
            if (watchers != null) {
                for (Object n = watchers.head; n != null; n = Watchers.next(n)) {
                    operations.add(Watchers.operation(n));
                }
            }
            return operations;
        } finally {
            lock.unlock();
        }
    }

    /** Hands every watched operation to {@code action} (an operation on k keys of this shard k times). */
    void forEachOperation(Consumer<DelayedOperation> action) {
        List<DelayedOperation> operations = new ArrayList<>();
        lock.lock();
        try {
            for (Watchers watchers : watchersByKey.values()) {
                for (Object n = watchers.head; n != null; n = Watchers.next(n)) {
                    operations.add(Watchers.operation(n));
                }
            }
        } finally {
            lock.unlock();
        }
        operations.forEach(action); // (S2): no lock held
    }

    /**
     * Removes every empty key list (those kept for reuse, and lingering ones whose key's
     * hashCode or equals failed) and any settled operation still linked (none should be).
     * Returns the number of entries removed.
     */
    int purge() {
        int purged = 0;
        lock.lock();
        try {
            Iterator<Watchers> it = watchersByKey.values().iterator();
            while (it.hasNext()) {
                Watchers watchers = it.next();
                boolean wasEmpty = watchers.isEmpty();
                for (Object n = watchers.head; n != null; n = Watchers.next(n)) {
                    if (Watchers.operation(n).isCompleted() && watchers.unlink(n)) {
                        counters.extraWatches.decrement(); // (C2)
                        purged++;
                    }
                }
                if (watchers.isEmpty()) {
                    it.remove(); // by the stored hash: works even if the key's hashCode changed
                    counters.mappedKeys.decrement(); // (C3)
                    if (wasEmpty) {
                        counters.emptyKeys.decrement(); // a kept or lingering list
                        if (watchers.lingering) {
                            counters.lingeringKeys.decrement();
                        }
                    }
                    purged++;
                }
            }
            emptyKept = 0;
        } finally {
            lock.unlock();
        }
        return purged;
    }

    /** Checks (S1) and the Watchers links (tests, in quiescence); returns the number of linked nodes. */
    int checkInvariants() {
        lock.lock();
        try {
            int linked = 0;
            for (Watchers w : watchersByKey.values()) {
                int count = 0;
                Object previous = null;
                for (Object n = w.head; n != null; n = Watchers.next(n)) {
                    if (Watchers.prev(n) != previous || Watchers.watchersOf(n) != w) {
                        throw new IllegalStateException("broken watch list for key " + w.key);
                    }
                    if (Watchers.operation(n).isCompleted()) {
                        throw new IllegalStateException("settled operation still watched on " + w.key);
                    }
                    previous = n;
                    count++;
                }
                if (previous != w.tail || count != w.size) {
                    throw new IllegalStateException("watch list tail or size wrong for key " + w.key);
                }
                linked += count;
            }
            return linked;
        } finally {
            lock.unlock();
        }
    }

    /** The keys with at least one linked operation (tests). */
    int keyCount() {
        lock.lock();
        try {
            int n = 0;
            for (Watchers w : watchersByKey.values()) {
                if (!w.isEmpty()) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }
}
