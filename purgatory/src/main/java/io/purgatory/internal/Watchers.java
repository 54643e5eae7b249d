package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.internal.Operation.Watching;
import java.util.Arrays;

/**
 * The operations watching one key: those watching it alone, in an intrusive doubly linked list
 * through their own links; the nodes of those watching it among other keys (and of positioned
 * operations whose position was reached), in a second list; and a binary min-heap by position
 * of those waiting for the key's position. Guarded by its watcher list's lock ({@link WatcherList}).
 * Link and unlink are O(1) on the lists, O(log n) on the heap.
 */
final class Watchers extends Watching {

    /*
     * Implementation notes.
     *
     * (K1) head..tail are exactly the operations linked here through their prev and next, in
     *      watch order, and nodeHead..nodeTail the nodes linked here, in the order they joined
     *      the list; size counts both lists and the heap. An element is linked iff it is its
     *      list's head or its prev is not null. A visit takes the first list, then the second,
     *      then the heap: each in its own order.
     * (K2) An unlinked element has null links: a settled operation that the application still
     *      holds reaches no other operation through its lists. Traversals therefore happen under
     *      the lock only (WatcherList copies a list out before it calls operations).
     * (K3) An operation watches a key at most once. Watching one key (and at no position), it is
     *      linked on that key's list itself and its `watching` is that Watchers; watching several
     *      keys, or at a position, it has a WatchNode on each, chained through nextOfOperation
     *      from its `watching`. So a single-key operation allocates nothing to watch.
     * (K8) A non-empty list is on its watcher list's list of active keys, in the order the keys
     *      became non-empty, with the time it did (read under the lock, so the times never
     *      decrease along that list); every operation on it was watched at that time or later.
     *      So a walk of the active keys meets lower bounds of the operations' ages in order.
     * (K7) A positioned operation's PositionNode is in `heap` until a positional visit reaches
     *      its position; that visit moves it to the end of the node list, under the lock, and
     *      tries it once. On the list it is tried by every visit but later positional checks,
     *      which skip the PositionNodes of the list.
     * (H1) heap[0..positioned) are exactly the nodes in the heap, each at its own `index`, and no
     *      node's position is below its parent's; slots from `positioned` on are null. So the
     *      nodes at or below a position form a subtree at the root, found without looking at
     *      any other node but its children. Add, remove and taking the lowest are O(log n).
     */

    final Object key;
    /** The watcher list whose lock guards this list's fields. */
    final WatcherList watcherList;
    private Operation head;
    private Operation tail;
    private WatchNode nodeHead;
    private WatchNode nodeTail;
    private int size;
    /** Null until the key's first positioned operation: most keys never have one (K7, H1). */
    private PositionNode[] heap;
    private int positioned;
    /** Its links on its watcher list's list of non-empty keys, in the order they became non-empty (K8). */
    Watchers activePrev;
    Watchers activeNext;
    /** When it last became non-empty: no operation on it now was watched before (K8). */
    long activatedNanos;

    Watchers(Object key, WatcherList watcherList) {
        this.key = key;
        this.watcherList = watcherList;
    }

    /** Takes {@code op} off every list it watches on (K3), its {@code watching} cleared; returns how many it was on. */
    static int unwatch(Operation op) {
        Watching watching = op.watching;
        op.watching = null;
        if (watching instanceof Watchers one) {
            return one.watcherList.unlink(one, op, null) ? 1 : 0;
        }
        int unlinked = 0;
        for (WatchNode node = (WatchNode) watching; node != null; node = node.nextOfOperation) {
            unlinked += node.watchers.watcherList.unlink(node.watchers, null, node) ? 1 : 0;
        }
        return unlinked;
    }

    /** Links {@code op}, which watches this key alone, at the tail (K1, K3). */
    void link(Operation op) {
        op.watching = this;
        op.prev = tail;
        if (tail == null) {
            head = op;
        } else {
            tail.next = op;
        }
        tail = op;
        size++;
    }

    /** Links a node of {@code op}, which watches other keys too, after {@code chain} (its nodes so far, K3). */
    WatchNode linkNode(Operation op, WatchNode chain) {
        WatchNode node = new WatchNode(op, this, chain);
        appendNode(node);
        size++;
        return node;
    }

    /** Links a node of {@code op} in the heap, to wait until this key's position reaches {@code position} (K7). */
    PositionNode linkAt(Operation op, long position, WatchNode chain) {
        PositionNode node = new PositionNode(op, this, position, chain);
        if (heap == null || positioned == heap.length) {
            heap = heap == null ? new PositionNode[8] : Arrays.copyOf(heap, 2 * positioned);
        }
        node.index = positioned++;
        siftUp(node); // puts it in its slot
        size++;
        return node;
    }

    /** Unlinks {@code op} if it is linked here itself (K1, K2); returns true iff it was. */
    boolean unlink(Operation op) {
        Operation p = op.prev;
        if (p == null && head != op) {
            return false;
        }
        Operation n = op.next;
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
        op.prev = null;
        op.next = null;
        size--;
        return true;
    }

    /** Unlinks {@code node} if it is linked here (K1, K2, K7); returns true iff it was. */
    boolean unlink(WatchNode node) {
        if (node instanceof PositionNode inHeap && inHeap.index >= 0) {
            unheap(inHeap);
            size--;
            return true;
        }
        WatchNode p = node.prev;
        if (p == null && nodeHead != node) {
            return false;
        }
        WatchNode n = node.next;
        if (p == null) {
            nodeHead = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            nodeTail = p;
        } else {
            n.prev = p;
        }
        node.prev = null;
        node.next = null;
        size--;
        return true;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * How many operations {@link #take} copies: those of the lists, but for the PositionNodes on
     * the node list if {@code mode} is NEWLY_REACHED; and of the heap every one if it is ALL, else
     * those at a position of at most {@code position}. O(that number).
     */
    int count(Visit mode, long position) {
        int lists = size - positioned;
        for (WatchNode n = nodeHead; mode == Visit.NEWLY_REACHED && n != null; n = n.next) {
            lists -= n instanceof PositionNode ? 1 : 0;
        }
        return lists + (mode == Visit.ALL ? positioned : countReached(0, position));
    }

    /**
     * Copies the operations {@link #count} counts into {@code into}: the list's, then the nodes',
     * then the heap's; unless {@code mode} is ALL, each heap node taken moves to the node list (K7).
     */
    void take(Visit mode, long position, Operation[] into) {
        boolean all = mode == Visit.ALL;
        boolean skipReached = mode == Visit.NEWLY_REACHED;
        int i = 0;
        for (Operation op = head; op != null; op = op.next) {
            into[i++] = op;
        }
        for (WatchNode n = nodeHead; n != null; n = n.next) {
            if (!(skipReached && n instanceof PositionNode)) {
                into[i++] = n.operation;
            }
        }
        for (int h = 0; all && h < positioned; h++) {
            into[i++] = heap[h].operation;
        }
        while (!all && positioned > 0 && heap[0].position <= position) {
            PositionNode node = heap[0];
            unheap(node);
            appendNode(node);
            into[i++] = node.operation;
        }
    }

    /**
     * Offers this key's operations to {@code pending} (under the watcher list's lock): those
     * watching it alone in watch order, while they may be kept; then each operation on several
     * keys whose chain starts here, and the positioned ones.
     */
    void offerPending(PendingList pending) {
        for (Operation op = head; op != null; op = op.next) {
            if (!pending.offer(op, this, activatedNanos)) {
                break;
            }
        }
        for (WatchNode n = nodeHead; n != null; n = n.next) {
            if (n.operation.watching == n) {
                pending.offer(n.operation, n, activatedNanos);
            }
        }
        for (int h = 0; h < positioned; h++) {
            PositionNode n = heap[h];
            if (n.operation.watching == n) {
                pending.offer(n.operation, n, activatedNanos);
            }
        }
    }

    /** Checks (K1), (K7), (H1) and OperationState (O6) for this key (tests, in quiescence); returns the elements. */
    int checkLinks(Owner owner) {
        int count = 0;
        Operation previous = null;
        for (Operation op = head; op != null; op = op.next) {
            if (op.prev != previous || op.watching != this) {
                throw new IllegalStateException("(K1) broken watch list for key " + key);
            }
            checkOperation(op, owner);
            previous = op;
            count++;
        }
        WatchNode previousNode = null;
        for (WatchNode n = nodeHead; n != null; n = n.next) {
            if (n.prev != previousNode || n.watchers != this
                    || (n instanceof PositionNode p && p.index != PositionNode.NOT_IN_HEAP)) {
                throw new IllegalStateException("(K1, K7) broken node list for key " + key);
            }
            checkOperation(n.operation, owner);
            previousNode = n;
            count++;
        }
        for (int i = 0; heap != null && i < heap.length; i++) {
            PositionNode node = heap[i];
            if (i >= positioned ? node != null : node.index != i || node.watchers != this
                    || (i > 0 && heap[(i - 1) / 2].position > node.position)) {
                throw new IllegalStateException("(H1) broken position heap for key " + key + " at " + i + " of "
                        + positioned);
            }
            if (i < positioned) {
                checkOperation(node.operation, owner);
                count++;
            }
        }
        if (previous != tail || previousNode != nodeTail || count != size) {
            throw new IllegalStateException("(K1) watch list tail or size wrong for key " + key);
        }
        return count;
    }

    private void checkOperation(Operation op, Owner owner) {
        if (op.owner == null || op.owner.engine() != owner) {
            throw new IllegalStateException("(O6) an operation on the list of " + key + " names owner " + op.owner);
        }
        if (OperationState.isSettled(op)) {
            throw new IllegalStateException("settled operation still watched on " + key);
        }
    }

    /** Takes {@code node} out of the heap (H1); its index becomes NOT_IN_HEAP. */
    private void unheap(PositionNode node) {
        int i = node.index;
        PositionNode last = heap[--positioned];
        heap[positioned] = null;
        node.index = PositionNode.NOT_IN_HEAP;
        if (last != node) {
            last.index = i;
            siftUp(last); // puts it in its slot
            siftDown(last);
        }
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
        int half = positioned >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            PositionNode c = heap[child];
            int right = child + 1;
            if (right < positioned && heap[right].position < c.position) {
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

    /** How many nodes of the heap's subtree at {@code i} wait for a position of at most {@code position} (H1). */
    private int countReached(int i, long position) { // recursion depth: the heap's height, at most 31
        if (i >= positioned || heap[i].position > position) {
            return 0;
        }
        return 1 + countReached(2 * i + 1, position) + countReached(2 * i + 2, position);
    }

    private void appendNode(WatchNode node) {
        node.prev = nodeTail;
        if (nodeTail == null) {
            nodeHead = node;
        } else {
            nodeTail.next = node;
        }
        nodeTail = node;
    }

    /**
     * An operation's place on the list of one of its keys, when it watches several (watching one
     * key, the operation is linked on that key's list itself, so a single-key operation allocates
     * none). An operation's nodes are chained through {@code nextOfOperation} from its
     * {@code watching}. A {@link PositionNode} is its place in a key's positions instead.
     */
    static class WatchNode extends Watching {

        final Operation operation;
        final Watchers watchers;
        final WatchNode nextOfOperation;
        /** Guarded by the watcher list's lock; null while unlinked (Watchers K2). */
        WatchNode prev;
        WatchNode next;

        WatchNode(Operation operation, Watchers watchers, WatchNode nextOfOperation) {
            this.operation = operation;
            this.watchers = watchers;
            this.nextOfOperation = nextOfOperation;
        }
    }

    /**
     * An operation's place on a key where it waits until the key's position reaches {@code position}.
     * Chained with the operation's other nodes as a {@link WatchNode} is. Until the position is
     * reached it is in the key's heap; once a positional check has reached it, it is on the key's
     * list of nodes, tried as a plainly watched node except by later positional checks (K7).
     */
    static final class PositionNode extends WatchNode {

        /** The index of a node not in the heap: on its key's node list once reached (K7), or unlinked. */
        static final int NOT_IN_HEAP = -1;

        final long position;
        /** Its index in the heap, or NOT_IN_HEAP; guarded by the watcher list's lock. */
        int index = NOT_IN_HEAP;

        PositionNode(Operation operation, Watchers watchers, long position, WatchNode nextOfOperation) {
            super(operation, watchers, nextOfOperation);
            this.position = position;
        }
    }
}
