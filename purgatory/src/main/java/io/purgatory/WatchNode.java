package io.purgatory;

/**
 * One operation's place on one key's watch list: an intrusive doubly linked node. An operation
 * watched on k keys has k nodes, chained through {@code nextOfOperation}.
 */
final class WatchNode {

    final DelayedOperation operation;
    final Watchers watchers;
    /** Guarded by the shard's lock; null once unlinked (and for the head). */
    WatchNode prev;
    /**
     * Written under the shard's lock, read by lock-free traversals. Kept when the node is
     * unlinked, so a traversal standing on it still reaches every later node (Watchers W2).
     */
    volatile WatchNode next;
    /** The operation's next node (DelayedOperation D5). */
    final WatchNode nextOfOperation;

    WatchNode(DelayedOperation operation, Watchers watchers, WatchNode nextOfOperation) {
        this.operation = operation;
        this.watchers = watchers;
        this.nextOfOperation = nextOfOperation;
    }
}
