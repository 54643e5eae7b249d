package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.internal.Watchers.PositionNode;
import java.util.Arrays;

/**
 * The positioned operations of one key that have not reached their position yet: a binary
 * min-heap of {@link PositionNode}s by position, each knowing its index, so add, remove and taking
 * the lowest are O(log n) and counting the nodes at or below a position is O(their number).
 * Guarded by the watcher list's lock, as its {@link Watchers}.
 */
final class PositionHeap {

    /*
     * (H1) nodes[0..size) are exactly the nodes in the heap, each at its own `index`, and no node's
     *      position is below its parent's; slots from size on are null. So the nodes at or below a
     *      position form a subtree at the root, found without looking at any other node but its
     *      children.
     */

    private PositionNode[] nodes = new PositionNode[8];
    private int size;

    int size() {
        return size;
    }

    void add(PositionNode node) {
        if (size == nodes.length) {
            nodes = Arrays.copyOf(nodes, 2 * size);
        }
        node.index = size++;
        siftUp(node); // puts it in its slot
    }

    /** Removes {@code node}, which is in this heap; its index becomes UNLINKED. */
    void remove(PositionNode node) {
        int i = node.index;
        PositionNode last = nodes[--size];
        nodes[size] = null;
        node.index = PositionNode.UNLINKED;
        if (last != node) {
            last.index = i;
            nodes[i] = last;
            siftUp(last);
            siftDown(last);
        }
    }

    PositionNode node(int i) {
        return nodes[i];
    }

    /** Checks (H1) for the heap of {@code watchers}, and each node's operation (tests); returns its size. */
    int check(Watchers watchers, Owner owner) {
        for (int i = 0; i < nodes.length; i++) {
            PositionNode node = nodes[i];
            if (i >= size ? node != null : node.index != i || node.watchers != watchers
                    || (i > 0 && nodes[(i - 1) / 2].position > node.position)) {
                throw new IllegalStateException("(H1) broken position heap for key " + watchers.key + " at " + i
                        + " of " + size);
            }
            if (i < size) {
                watchers.checkOperation(node.operation, owner);
            }
        }
        return size;
    }

    private void siftUp(PositionNode node) {
        int i = node.index;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            PositionNode p = nodes[parent];
            if (p.position <= node.position) {
                break;
            }
            nodes[i] = p;
            p.index = i;
            i = parent;
        }
        nodes[i] = node;
        node.index = i;
    }

    private void siftDown(PositionNode node) {
        int i = node.index;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            PositionNode c = nodes[child];
            int right = child + 1;
            if (right < size && nodes[right].position < c.position) {
                child = right;
                c = nodes[child];
            }
            if (node.position <= c.position) {
                break;
            }
            nodes[i] = c;
            c.index = i;
            i = child;
        }
        nodes[i] = node;
        node.index = i;
    }

    /** How many nodes of the subtree at {@code i} wait for a position of at most {@code position} (H1). */
    int countReached(int i, long position) { // recursion depth: the heap's height, at most 31
        if (i >= size || nodes[i].position > position) {
            return 0;
        }
        return 1 + countReached(2 * i + 1, position) + countReached(2 * i + 2, position);
    }
}
