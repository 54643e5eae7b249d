package io.purgatory;

/**
 * An operation's place on the watch list of one of its keys after the first: an intrusive doubly
 * linked node. (The operation is itself the node of its first key, so a single-key operation
 * allocates no node.) An operation's extra nodes are chained through {@code nextOfOperation}.
 */
final class WatchNode {

    final DelayedOperation operation;
    final Watchers watchers;
    /** A WatchNode or a DelayedOperation; guarded by the shard's lock; null once unlinked (and for the head). */
    Object prev;
    /**
     * Written under the shard's lock, read by lock-free traversals. Kept when the node is
     * unlinked, so a traversal standing on it still reaches every later node (Watchers W2).
     */
    volatile Object next;
    /** The operation's next extra node (DelayedOperation D5). */
    final WatchNode nextOfOperation;

    WatchNode(DelayedOperation operation, Watchers watchers, WatchNode nextOfOperation) {
        this.operation = operation;
        this.watchers = watchers;
        this.nextOfOperation = nextOfOperation;
    }
}
