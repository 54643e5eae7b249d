package io.purgatory.internal;

/**
 * An operation's place on a key where it waits until the key's position reaches {@code position}.
 * Chained with the operation's other nodes as a {@link WatchNode} is. Until the position is
 * reached it is in the key's {@link PositionHeap}; once a positional check has reached it, it is
 * on the key's list of nodes, tried as a plainly watched node except by later positional checks.
 */
final class PositionNode extends WatchNode {

    /** The index of a node on its key's list: reached, tried once by a positional check. */
    static final int ON_LIST = -2;
    /** The index of an unlinked node. */
    static final int UNLINKED = -1;

    final long position;
    /** Its index in the heap, ON_LIST or UNLINKED; guarded by the watcher list's lock. */
    int index = UNLINKED;

    PositionNode(Operation operation, Watchers watchers, long position, WatchNode nextOfOperation) {
        super(operation, watchers, nextOfOperation);
        this.position = position;
    }
}
