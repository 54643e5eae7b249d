package io.purgatory;

/**
 * The operations watching one key: an intrusive doubly linked list in insertion order. Link and
 * unlink are O(1) under the owning shard's lock; traversal is lock-free.
 */
final class Watchers {

    /*
     * Implementation notes.
     *
     * A node is either a DelayedOperation (on the list of its first key, through its own watchPrev
     * and watchNext fields) or a WatchNode (an operation's place on the list of another key). The
     * static accessors below are the only code that tells the two apart.
     *
     * (W1) head..tail are exactly the linked nodes; a node is linked iff prev != null or it is head.
     * (W2) Unlinking a node keeps its `next`. Nodes are only ever appended, never re-linked, so from
     *      any node, linked or not, following `next` reaches every node still linked after it. A
     *      traversal that read head and tail under the lock and stops at that tail therefore sees
     *      every operation that was watched before it started and is still watched, and ends.
     */

    final Object key;
    final WatcherList shard;
    Object head;
    Object tail;
    int size;
    /** Empty, and still mapped because its removal failed (WatcherList S1); guarded by the shard's lock. */
    boolean lingering;

    Watchers(Object key, WatcherList shard) {
        this.key = key;
        this.shard = shard;
    }

    /** Appends {@code node}; caller holds the shard's lock. */
    void append(Object node) {
        Object last = tail;
        if (last == null) {
            head = node;
        } else {
            setPrev(node, last);
            setNext(last, node);
        }
        tail = node;
        size++;
    }

    /** Unlinks {@code node} if linked; returns true iff it was. Caller holds the shard's lock. */
    boolean unlink(Object node) {
        Object p = prev(node);
        if (p == null && head != node) {
            return false; // (W1): already unlinked
        }
        Object n = next(node);
        if (p == null) {
            head = n;
        } else {
            setNext(p, n);
        }
        if (n == null) {
            tail = p;
        } else {
            setPrev(n, p);
        }
        setPrev(node, null); // (W2): next is kept
        size--;
        return true;
    }

    boolean isEmpty() {
        return head == null;
    }

    // ---- the two kinds of node ----

    static DelayedOperation operation(Object node) {
        return node instanceof WatchNode n ? n.operation : (DelayedOperation) node;
    }

    static Watchers watchersOf(Object node) {
        return node instanceof WatchNode n ? n.watchers : ((DelayedOperation) node).watchers;
    }

    static Object next(Object node) {
        return node instanceof WatchNode n ? n.next : ((DelayedOperation) node).watchNext;
    }

    static Object prev(Object node) {
        return node instanceof WatchNode n ? n.prev : ((DelayedOperation) node).watchPrev;
    }

    private static void setNext(Object node, Object next) {
        if (node instanceof WatchNode n) {
            n.next = next;
        } else {
            ((DelayedOperation) node).watchNext = next;
        }
    }

    private static void setPrev(Object node, Object prev) {
        if (node instanceof WatchNode n) {
            n.prev = prev;
        } else {
            ((DelayedOperation) node).watchPrev = prev;
        }
    }
}
