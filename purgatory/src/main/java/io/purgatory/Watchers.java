package io.purgatory;

/**
 * The operations watching one key: an intrusive doubly linked list of {@link WatchNode}s in
 * insertion order. Link and unlink are O(1) under the owning shard's lock; traversal is lock-free.
 */
final class Watchers {

    /*
     * Implementation notes.
     *
     * (W1) head..tail are exactly the linked nodes; a node is linked iff prev != null or it is head.
     * (W2) Unlinking a node keeps its `next`. Nodes are only ever appended, never re-linked, so from
     *      any node, linked or not, following `next` reaches every node still linked after it. A
     *      traversal that read head and tail under the lock and stops at that tail therefore sees
     *      every operation that was watched before it started and is still watched, and ends.
     */

    final Object key;
    final WatcherList shard;
    WatchNode head;
    WatchNode tail;
    int size;

    Watchers(Object key, WatcherList shard) {
        this.key = key;
        this.shard = shard;
    }

    /** Appends {@code node}; caller holds the shard's lock. */
    void append(WatchNode node) {
        WatchNode last = tail;
        if (last == null) {
            head = node;
        } else {
            node.prev = last;
            last.next = node;
        }
        tail = node;
        size++;
    }

    /** Unlinks {@code node} if linked; returns true iff it was. Caller holds the shard's lock. */
    boolean unlink(WatchNode node) {
        WatchNode p = node.prev;
        if (p == null && head != node) {
            return false; // (W1): already unlinked
        }
        WatchNode n = node.next;
        if (p == null) {
            head = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            tail = p;
        } else {
            n.prev = p;
        }
        node.prev = null; // (W2): next is kept
        size--;
        return true;
    }

    boolean isEmpty() {
        return head == null;
    }
}
