package io.purgatory;

/**
 * The operations watching one key: an intrusive doubly linked list in watch order, guarded by its
 * shard's lock ({@link WatcherList}). Link and unlink are O(1).
 */
final class Watchers {

    /*
     * Implementation notes.
     *
     * A node is an operation (on its first key's list, through its own watchPrev and watchNext)
     * or a WatchNode (an operation's place on another key's list). The accessors at the end are
     * the only code that tells the two apart.
     *
     * (K1) head..tail are exactly the linked nodes, in watch order, and size counts them. A node
     *      is linked iff it is head or its prev is not null.
     * (K2) An unlinked node has null links: a settled operation that the application still holds
     *      reaches no other operation through its lists. Traversals therefore happen under the
     *      lock only (WatcherList copies a list out before it calls operations).
     * (K3) An operation is on a list at most once. Watched on one key, it is its own node there
     *      (its `watchers` names that list while it is linked). Watched on several, it is on each
     *      through a WatchNode; the nodes are chained from its `watchNext`, which is not a list
     *      link then, and its `watchers` stays null. So the operation needs no field for its
     *      nodes, and a single-key operation allocates nothing.
     */

    final Object key;
    final WatcherList shard;
    private WatchLink head;
    private WatchLink tail;
    private int size;
    /** Empty, and still mapped because its removal failed; guarded by the shard's lock. */
    boolean lingering;

    Watchers(Object key, WatcherList shard) {
        this.key = key;
        this.shard = shard;
    }

    /** Links {@code op} at the tail: as its own node if it watches this key {@code alone}, else by a WatchNode (K3). */
    void link(DelayedOperation op, boolean alone) {
        if (alone) {
            op.watchers = this;
            append(op);
        } else {
            WatchNode node = new WatchNode(op, this, firstNodeOf(op));
            op.watchNext = node;
            append(node);
        }
    }

    /** The first of {@code op}'s WatchNodes (several keys), or null (K3). */
    static WatchNode firstNodeOf(DelayedOperation op) {
        return op.watchers == null ? (WatchNode) op.watchNext : null;
    }

    /** Unlinks {@code node} if it is linked here (K1, K2); returns true iff it was. */
    boolean unlink(WatchLink node) {
        WatchLink p = prev(node);
        if (p == null && head != node) {
            return false;
        }
        WatchLink n = next(node);
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
        setPrev(node, null);
        setNext(node, null);
        size--;
        return true;
    }

    boolean isEmpty() {
        return head == null;
    }

    int size() {
        return size;
    }

    /** Copies the linked nodes, in watch order, into {@code into} (size slots at least). */
    void copyTo(WatchLink[] into) {
        int i = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            into[i++] = n;
        }
    }

    /** The operations, in watch order (a new array). */
    DelayedOperation[] operations() {
        DelayedOperation[] ops = new DelayedOperation[size];
        int i = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            ops[i++] = operationOf(n);
        }
        return ops;
    }

    /** Checks (K1) and (K3) for this list (tests, in quiescence); returns the number of linked nodes. */
    int checkLinks() {
        int count = 0;
        WatchLink previous = null;
        for (WatchLink n = head; n != null; n = next(n)) {
            if (prev(n) != previous || watchersOf(n) != this) {
                throw new IllegalStateException("(K1) broken watch list for key " + key);
            }
            if (operationOf(n).isCompleted()) {
                throw new IllegalStateException("settled operation still watched on " + key);
            }
            previous = n;
            count++;
        }
        if (previous != tail || count != size) {
            throw new IllegalStateException("(K1) watch list tail or size wrong for key " + key);
        }
        return count;
    }

    private void append(WatchLink node) {
        WatchLink last = tail;
        if (last == null) {
            head = node;
        } else {
            setPrev(node, last);
            setNext(last, node);
        }
        tail = node;
        size++;
    }

    // ---- the two kinds of node ----

    static DelayedOperation operationOf(WatchLink node) {
        return node instanceof WatchNode w ? w.operation : (DelayedOperation) node;
    }

    private static Watchers watchersOf(WatchLink node) {
        return node instanceof WatchNode w ? w.watchers : ((DelayedOperation) node).watchers;
    }

    private static WatchLink next(WatchLink node) {
        return node instanceof WatchNode w ? w.next : ((DelayedOperation) node).watchNext;
    }

    private static WatchLink prev(WatchLink node) {
        return node instanceof WatchNode w ? w.prev : ((DelayedOperation) node).watchPrev;
    }

    private static void setNext(WatchLink node, WatchLink next) {
        if (node instanceof WatchNode w) {
            w.next = next;
        } else {
            ((DelayedOperation) node).watchNext = next;
        }
    }

    private static void setPrev(WatchLink node, WatchLink prev) {
        if (node instanceof WatchNode w) {
            w.prev = prev;
        } else {
            ((DelayedOperation) node).watchPrev = prev;
        }
    }
}
