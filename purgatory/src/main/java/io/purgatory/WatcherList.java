package io.purgatory;

import com.google.errorprone.annotations.concurrent.GuardedBy;

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
 * its visitor with no lock held.
 */
final class WatcherList {

    /** Emptied key lists a watcher list keeps for reuse (K5). */
    static final int MAX_EMPTY_KEPT = 16;

    /*
     * Implementation notes.
     *
     * (K4) The lock is this object's monitor; it is held only around map and list changes and
     *      copies, never while an operation's method runs, and it is released even when the
     *      stack runs out inside (a monitor is, unlike a lock whose unlock is a call).
     * (K5) A key is in the map iff its Watchers is non-empty, or it is one of at most
     *      MAX_EMPTY_KEPT emptied lists kept for reuse (a hot key then costs no map insertion and
     *      removal per operation), or a "lingering" empty entry whose removal failed because the
     *      key's hashCode or equals threw or changed. purge() sweeps both kinds.
     * (K6) No lost wake-up: a submission links under this lock and then tries again; a check
     *      copies the list under it. If the check's copy comes first, the caller's state change
     *      happens-before the submission's second try; otherwise the copy holds the operation.
     *      A check tries exactly the operations its copy holds: those watched before it began.
     * (K8) A key's hashCode or equals may throw or lie. In watch and visit that reaches the
     *      caller, nothing changed; in unwatch it is contained: the emptied list stays mapped,
     *      "lingering" (K5), and the unwatch goes on, so a settle always leaves every list.
     * (K9) Nor may a key's methods call back into this list (the monitor is reentrant): while the
     *      map calls them, `callingAKey` is set, and a call that finds it set is refused with a
     *      KeyReentryException, before it changes anything. So no map operation runs inside
     *      another, and none of them is lost.
     */

    @GuardedBy("this")
    private final Map<Object, Watchers> watchersByKey = new HashMap<>();
    /** Emptied lists kept in the map for reuse (K5). */
    @GuardedBy("this")
    private int emptyKept;
    /** True while the map calls a key's hashCode or equals (K9). */
    @GuardedBy("this")
    private boolean callingAKey;
    /** The engine whose keys these are: the owner of every operation linked here (OperationState O6). */
    final Owner owner;
    private final PurgatoryCounters counters;

    WatcherList(Owner owner, PurgatoryCounters counters) {
        this.owner = owner;
        this.counters = counters;
    }

    /**
     * Links {@code op} on {@code key}, {@code alone} if it is its only key; the caller holds the
     * operation's submission claim. Whatever the key's hashCode or equals throws propagates, and
     * then nothing was linked.
     */
    synchronized void watch(DelayedOperation op, Object key, boolean alone) {
        listFor(key).link(op, alone);
    }

    /** The key's list, created or reused (K5). */
    @GuardedBy("this")
    private Watchers listFor(Object key) {
        Watchers watchers = lookUp(key);
        if (watchers == null) {
            watchers = new Watchers(key, this);
            enterKeyCall();
            try {
                watchersByKey.put(key, watchers);
            } finally {
                callingAKey = false;
            }
            counters.keyListAdded();
        } else if (watchers.isEmpty()) { // a kept or lingering list, reused (K5)
            boolean lingered = watchers.lingering;
            if (lingered) {
                watchers.lingering = false;
            } else {
                emptyKept--;
            }
            counters.keyListRefilled(lingered);
        }
        return watchers;
    }

    /**
     * Links {@code op} on {@code key} to wait until the key's position reaches {@code position}
     * (K7); the caller holds the operation's submission claim. As {@link #watch} otherwise.
     */
    synchronized void watchAt(DelayedOperation op, Object key, long position) {
        listFor(key).linkAt(op, position);
    }

    /** Unlinks every node of {@code op} and forgets them; returns how many were linked. Never throws on a key (K8). */
    static int unwatchAll(DelayedOperation op) {
        int unlinked = 0;
        Watchers own = Watchers.listOf(op);
        if (own != null) {
            if (own.watcherList.unwatch(op, own)) {
                unlinked++;
            }
            Watchers.forgetList(op);
            return unlinked;
        }
        for (WatchNode node = Watchers.firstNodeOf(op); node != null; node = node.nextOfOperation) {
            if (node.watchers.watcherList.unwatch(node, node.watchers)) {
                unlinked++;
            }
        }
        op.watchNext = null;
        return unlinked;
    }

    private synchronized boolean unwatch(WatchLink node, Watchers watchers) {
        if (!watchers.unlink(node)) {
            return false;
        }
        if (watchers.isEmpty()) {
            if (emptyKept < MAX_EMPTY_KEPT) { // keep it for the key's next operation (K5)
                emptyKept++;
                counters.keyListEmptied(false);
            } else {
                removeKey(watchers);
            }
        }
        return true;
    }

    @GuardedBy("this")
    private void removeKey(Watchers watchers) {
        boolean removed;
        try {
            enterKeyCall();
            try {
                removed = watchersByKey.remove(watchers.key, watchers);
            } finally {
                callingAKey = false;
            }
        } catch (Throwable keyFailure) { // (K8): an Error from hashCode or equals too
            removed = false;
        }
        if (removed) {
            counters.keyListRemoved();
        } else {
            watchers.lingering = true; // (K5)
            counters.keyListEmptied(true);
        }
    }

    /** {@code key}'s list, or null; the key's methods fenced against reentry (K9). */
    @GuardedBy("this")
    private Watchers lookUp(Object key) {
        enterKeyCall();
        try {
            return watchersByKey.get(key);
        } finally {
            callingAKey = false;
        }
    }

    /** True iff this thread is inside a key's method called by this list (K9): a close from there is refused. */
    synchronized boolean isCallingAKeyOnThisThread() {
        return callingAKey; // the monitor is this thread's: set only by a call on its stack
    }

    /** Marks a call of a key's methods; refuses one made from inside another (K9). */
    @GuardedBy("this")
    private void enterKeyCall() {
        if (callingAKey) {
            throw new KeyReentryException();
        }
        callingAKey = true;
    }

    /** What a visit does with each operation watching a key; true if it settled the operation. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(DelayedOperation op, Object event);
    }

    /**
     * Hands {@code event} to {@code visitor} with each operation watching {@code key} when the call
     * starts (K6), as {@code mode} selects them at {@code position} (K7), with no lock held (K4);
     * returns how many visits returned true. Every operation copied is visited: a visitor that
     * throws (a library fault; user code is contained by UserCode) does not stop the others, and
     * the first such failure is rethrown once all were visited.
     */
    int visit(Object key, Visit mode, long position, Object event, Visitor visitor) {
        CopyBuffer copies = CopyBuffer.current();
        WatchLink[] nodes;
        int n;
        synchronized (this) {
            Watchers watchers = lookUp(key);
            if (watchers == null || watchers.isEmpty()) {
                return 0;
            }
            boolean skipReached = mode == Visit.NEWLY_REACHED;
            n = mode == Visit.ALL ? watchers.size() : watchers.countReached(position, skipReached);
            if (n == 0) {
                return 0;
            }
            nodes = copies.take(n);
            if (mode == Visit.ALL) {
                watchers.copyAll(nodes);
            } else {
                watchers.takeReached(position, skipReached, nodes);
            }
        }
        int settled = 0;
        Throwable failure = null;
        try {
            for (int i = 0; i < n; i++) {
                try {
                    if (visitor.visit(Watchers.operationOf(nodes[i]), event)) { // a node's operation never changes
                        settled++;
                    }
                } catch (Throwable visitFailure) {
                    if (failure == null) {
                        failure = visitFailure;
                    }
                }
            }
        } finally {
            copies.give(nodes, n);
        }
        if (failure != null) {
            throw rethrown(failure);
        }
        return settled;
    }

    /** The pending operations watching {@code key}, in watch order (a copy). */
    synchronized DelayedOperation[] operationsOn(Object key) {
        Watchers watchers = lookUp(key);
        if (watchers == null) {
            return new DelayedOperation[0];
        }
        return watchers.operations();
    }

    /** Every linked operation of this list (an operation on k of its keys k times). */
    synchronized List<DelayedOperation> operations() {
        List<DelayedOperation> all = new ArrayList<>();
        for (Watchers watchers : watchersByKey.values()) {
            all.addAll(Arrays.asList(watchers.operations()));
        }
        return all;
    }

    /**
     * Removes every empty key list: those kept for reuse, and lingering ones whose key's hashCode
     * or equals failed (K5). Returns the number removed.
     */
    synchronized int purge() {
        int purged = 0;
        Iterator<Watchers> it = watchersByKey.values().iterator();
        while (it.hasNext()) {
            Watchers watchers = it.next();
            if (watchers.isEmpty()) {
                it.remove(); // by the stored hash: works even if the key's hashCode changed
                counters.keyListSwept(watchers.lingering);
                purged++;
            }
        }
        emptyKept = 0;
        return purged;
    }

    /** Checks each list's links and (K5) (tests, in quiescence); returns {linked nodes, non-empty keys}. */
    synchronized long[] checkInvariants() {
        long linked = 0;
        long keys = 0;
        int empty = 0;
        for (Watchers watchers : watchersByKey.values()) {
            int count = watchers.checkLinks();
            linked += count;
            if (count > 0) {
                keys++;
            } else if (!watchers.lingering) {
                empty++;
            }
        }
        if (empty != emptyKept || emptyKept > MAX_EMPTY_KEPT) {
            throw new IllegalStateException("(K5) " + empty + " kept empty lists, counted " + emptyKept);
        }
        return new long[] {linked, keys};
    }

    /** {@code failure} as thrown by a visitor: its own type if unchecked, else wrapped. */
    private static RuntimeException rethrown(Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        return failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
    }
}
