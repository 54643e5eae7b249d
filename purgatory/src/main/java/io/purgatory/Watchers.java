package io.purgatory;

import java.util.Arrays;

/**
 * The operations watching one key: an intrusive doubly linked list in watch order, and a min-heap
 * of the operations waiting for the key's position to reach a value, guarded by its shard's lock
 * ({@link WatcherList}). Link and unlink are O(1) on the list, O(log n) on the heap; the
 * operations whose position is reached are found in O(their number).
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
     *      nodes, and a single-key operation allocates nothing. (A positioned operation is the
     *      exception: one PositionNode, chained the same way; see K7.)
     * (K7) A positioned operation is on this key only, through one PositionNode, in `heap`:
     *      heap[0..heapSize) are exactly the linked PositionNodes, each at its own `index`, and no
     *      node's position is below its parent's. So the nodes whose position is at most p form a
     *      subtree at the root, found without looking at any other node but its children. An
     *      unlinked PositionNode has index -1. size counts the list's nodes and the heap's.
     */

    final Object key;
    final WatcherList shard;
    private WatchLink head;
    private WatchLink tail;
    private int size;
    private PositionNode[] heap;
    private int heapSize;
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

    /** Links single-key {@code op} in the heap, to wait until this key's position reaches {@code position} (K7). */
    void linkAt(DelayedOperation op, long position) {
        PositionNode node = new PositionNode(op, this, position);
        op.watchNext = node;
        if (heap == null || heapSize == heap.length) {
            heap = Arrays.copyOf(heap == null ? new PositionNode[0] : heap, Math.max(8, 2 * heapSize));
        }
        node.index = heapSize;
        heap[heapSize++] = node;
        siftUp(node);
        size++;
    }

    /** Unlinks {@code node} if it is linked here (K1, K2, K7); returns true iff it was. */
    boolean unlink(WatchLink node) {
        if (node instanceof PositionNode positioned) {
            return unlinkFromHeap(positioned);
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

    /**
     * How many nodes {@link #copyTo} copies: the list's if {@code list}, and the positioned ones
     * waiting for at most {@code reached} (all of them at {@code Long.MAX_VALUE}). O(that number).
     */
    int count(boolean list, long reached) {
        int positioned = reached == Long.MAX_VALUE ? heapSize : countReached(0, reached);
        return list ? size - heapSize + positioned : positioned;
    }

    /** Copies the nodes {@link #count} counts, the list's first in watch order, into {@code into}. */
    void copyTo(boolean list, long reached, WatchLink[] into) {
        int i = 0;
        if (list) {
            for (WatchLink n = head; n != null; n = next(n)) {
                into[i++] = n;
            }
        }
        if (reached == Long.MAX_VALUE) {
            if (heapSize > 0) {
                System.arraycopy(heap, 0, into, i, heapSize);
            }
        } else {
            copyReached(0, reached, into, i);
        }
    }

    /** The operations, the list's in watch order then the heap's (a new array). */
    DelayedOperation[] operations() {
        DelayedOperation[] ops = new DelayedOperation[size];
        int i = 0;
        for (WatchLink n = head; n != null; n = next(n)) {
            ops[i++] = operationOf(n);
        }
        for (int h = 0; h < heapSize; h++) {
            ops[i++] = heap[h].operation;
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
        for (int h = 0; h < heapSize; h++) {
            PositionNode node = heap[h];
            if (node.index != h || node.watchers != this || node.operation.watchNext != node
                    || (h > 0 && heap[(h - 1) / 2].position > node.position)) {
                throw new IllegalStateException("(K7) broken position heap for key " + key + " at " + h);
            }
            if (node.operation.isCompleted()) {
                throw new IllegalStateException("settled operation still watched at a position on " + key);
            }
            count++;
        }
        if (heap != null) {
            for (int h = heapSize; h < heap.length; h++) {
                if (heap[h] != null) {
                    throw new IllegalStateException("(K7) position heap holds an unlinked node for key " + key);
                }
            }
        }
        if (previous != tail || count != size) {
            throw new IllegalStateException("(K1) watch list tail or size wrong for key " + key);
        }
        return count;
    }

    // ---- the heap (K7) ----

    private boolean unlinkFromHeap(PositionNode node) {
        int i = node.index;
        if (i < 0) {
            return false;
        }
        PositionNode last = heap[--heapSize];
        heap[heapSize] = null;
        node.index = -1;
        size--;
        if (last != node) {
            last.index = i;
            heap[i] = last;
            siftUp(last);
            siftDown(last);
        }
        if (heapSize == 0) {
            heap = null; // an emptied key keeps no array
        }
        return true;
    }

    private void siftUp(PositionNode node) {
        int i = node.index;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            PositionNode p = heap[parent];
            if (p.position <= node.position) {
                break;
            }
            heap[i] = p;
            p.index = i;
            i = parent;
        }
        heap[i] = node;
        node.index = i;
    }

    private void siftDown(PositionNode node) {
        int i = node.index;
        int half = heapSize >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            PositionNode c = heap[child];
            int right = child + 1;
            if (right < heapSize && heap[right].position < c.position) {
                child = right;
                c = heap[child];
            }
            if (node.position <= c.position) {
                break;
            }
            heap[i] = c;
            c.index = i;
            i = child;
        }
        heap[i] = node;
        node.index = i;
    }

    private int countReached(int i, long position) { // recursion depth: the heap's height, at most 31
        if (i >= heapSize || heap[i].position > position) {
            return 0;
        }
        return 1 + countReached(2 * i + 1, position) + countReached(2 * i + 2, position);
    }

    private int copyReached(int i, long position, WatchLink[] into, int at) {
        if (i >= heapSize || heap[i].position > position) {
            return at;
        }
        into[at] = heap[i];
        return copyReached(2 * i + 2, position, into, copyReached(2 * i + 1, position, into, at + 1));
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
