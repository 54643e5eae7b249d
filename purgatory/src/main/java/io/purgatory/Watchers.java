package io.purgatory;

/**
 * The operations watching one key: an intrusive doubly linked list in watch order, and a
 * {@link PositionHeap} of those waiting for the key's position to reach a value, guarded by its
 * watcher list's lock ({@link WatcherList}). Link and unlink are O(1) on the list, O(log n) on the heap.
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
     *      (its `home` names that list while it is linked, in place of its owner, or, if its wait
     *      is observed, its ObservedOwner's `list` does: listOf). Watched on several, it is on
     *      each through a WatchNode; the nodes are chained from its `watchNext`, which is not a
     *      list link then, and listOf is null. So the operation needs no field for its nodes,
     *      and a single-key operation allocates nothing. (A positioned operation is the
     *      exception: one PositionNode, chained the same way; see K7.)
     * (K7) A positioned operation has a PositionNode on each of its keys, chained as WatchNodes
     *      are. The node is in `heap` until a positional check reaches its position; that check
     *      moves it to the end of the list (index ON_LIST), under the lock, and tries it once.
     *      On the list it is tried by every visit but later positional checks, which skip it
     *      (`reachedOnList` counts them). An unlinked node has index UNLINKED. size counts the
     *      list's nodes and the heap's.
     */

    final Object key;
    /** The watcher list whose lock guards this list's fields. */
    final WatcherList watcherList;
    private WatchLink head;
    private WatchLink tail;
    private int size;
    /** Null until the key's first positioned operation: most keys never have one (K7). */
    private PositionHeap heap;
    /** PositionNodes on the list (K7). */
    private int reachedOnList;
    /** Empty, and still mapped because its removal failed; guarded by the watcher list's lock. */
    boolean lingering;

    Watchers(Object key, WatcherList watcherList) {
        this.key = key;
        this.watcherList = watcherList;
    }

    /** Links {@code op} at the tail: as its own node if it watches this key {@code alone}, else by a WatchNode (K3). */
    void link(DelayedOperation op, boolean alone) {
        if (alone) {
            if (op.home instanceof ObservedOwner observed) {
                observed.list = this;
            } else {
                op.home = this;
            }
            append(op);
        } else {
            WatchNode node = new WatchNode(op, this, firstNodeOf(op));
            op.watchNext = node;
            append(node);
        }
    }

    /** The list {@code op} is linked on itself (one key), or null (K3). */
    static Watchers listOf(DelayedOperation op) {
        Object home = op.home;
        if (home instanceof Watchers list) {
            return list;
        }
        return home instanceof ObservedOwner observed ? observed.list : null;
    }

    /** After {@code op} was unlinked from the list it was on itself, its home names its owner again (K3). */
    static void forgetList(DelayedOperation op) {
        Object home = op.home;
        if (home instanceof Watchers list) {
            op.home = list.watcherList.owner;
        } else if (home instanceof ObservedOwner observed) {
            observed.list = null;
        }
    }

    /** The first of {@code op}'s WatchNodes (several keys), or null (K3). */
    static WatchNode firstNodeOf(DelayedOperation op) {
        return listOf(op) == null ? (WatchNode) op.watchNext : null;
    }

    /** Links {@code op} in the heap, to wait until this key's position reaches {@code position} (K3, K7). */
    void linkAt(DelayedOperation op, long position) {
        PositionNode node = new PositionNode(op, this, position, firstNodeOf(op));
        op.watchNext = node;
        if (heap == null) {
            heap = new PositionHeap();
        }
        heap.add(node);
        size++;
    }

    /** Unlinks {@code node} if it is linked here (K1, K2, K7); returns true iff it was. */
    boolean unlink(WatchLink node) {
        if (node instanceof PositionNode positioned) {
            if (positioned.index >= 0) {
                heap.remove(positioned, PositionNode.UNLINKED);
                size--;
                return true;
            }
            if (positioned.index == PositionNode.UNLINKED) {
                return false;
            }
            positioned.index = PositionNode.UNLINKED;
            reachedOnList--;
        }
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
        return size == 0;
    }

    int size() {
        return size;
    }

    /** Copies every linked node, the list's first in watch order, into {@code into} (size slots at least). */
    void copyAll(WatchLink[] into) {
        int i = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            into[i++] = n;
        }
        if (heap != null) {
            heap.copyTo(into, i);
        }
    }

    /**
     * How many nodes {@link #takeReached} takes: those of the list, but for the PositionNodes on it
     * if {@code skipReached}, and those in the heap at a position of at most {@code position}.
     * O(that number).
     */
    int countReached(long position, boolean skipReached) {
        if (heap == null) {
            return size - (skipReached ? reachedOnList : 0);
        }
        int list = size - heap.size() - (skipReached ? reachedOnList : 0);
        return list + heap.countReached(position);
    }

    /**
     * Copies the nodes {@link #countReached} counts into {@code into}: first the list's, then the
     * heap's that {@code position} reaches, each moved to the list as it is taken (K7).
     */
    void takeReached(long position, boolean skipReached, WatchLink[] into) {
        int i = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            if (!(skipReached && n instanceof PositionNode)) {
                into[i++] = n;
            }
        }
        if (heap == null) {
            return;
        }
        for (PositionNode node = heap.pollReached(position); node != null; node = heap.pollReached(position)) {
            node.index = PositionNode.ON_LIST;
            reachedOnList++;
            size--; // append counts it again
            append(node);
            into[i++] = node;
        }
    }

    /** The operations, the list's in watch order then the heap's (a new array). */
    DelayedOperation[] operations() {
        DelayedOperation[] ops = new DelayedOperation[size];
        int i = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            ops[i++] = operationOf(n);
        }
        for (int h = 0; heap != null && h < heap.size(); h++) {
            ops[i++] = heap.node(h).operation;
        }
        return ops;
    }

    /** Checks (K1), (K3) and OperationState (O6) for this list (tests, in quiescence); returns the linked nodes. */
    int checkLinks() {
        int count = 0;
        WatchLink previous = null;
        for (WatchLink n = head; n != null; n = next(n)) {
            if (prev(n) != previous || watchersOf(n) != this) {
                throw new IllegalStateException("(K1) broken watch list for key " + key);
            }
            Owner owner = OperationState.ownerOf(operationOf(n));
            if (watcherList.owner != null && (owner == null || owner.engine() != watcherList.owner)) {
                throw new IllegalStateException("(O6) an operation on the list of " + key + " names owner " + owner);
            }
            if (operationOf(n).isCompleted()) {
                throw new IllegalStateException("settled operation still watched on " + key);
            }
            previous = n;
            count++;
        }
        int onList = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            if (n instanceof PositionNode p) {
                if (p.index != PositionNode.ON_LIST) {
                    throw new IllegalStateException("(K7) a position node on the list of " + key + " is not ON_LIST");
                }
                onList++;
            }
        }
        if (onList != reachedOnList) {
            throw new IllegalStateException("(K7) " + onList + " position nodes on the list of " + key + ", counted "
                    + reachedOnList);
        }
        count += heap == null ? 0 : heap.check(this);
        for (int h = 0; heap != null && h < heap.size(); h++) {
            if (heap.node(h).operation.isCompleted()) {
                throw new IllegalStateException("settled operation still watched at a position on " + key);
            }
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
        return node instanceof WatchNode w ? w.watchers : listOf((DelayedOperation) node);
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
