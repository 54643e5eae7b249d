package io.purgatory;

/**
 * An operation's place on the watch list of one of its keys after the first. (The operation is
 * itself the node of its first key, so a single-key operation allocates no node.) An operation's
 * nodes are chained through {@code nextOfOperation}.
 */
final class WatchNode implements WatchLink {

    final DelayedOperation operation;
    final Watchers watchers;
    final WatchNode nextOfOperation;
    /** Guarded by the shard's lock; null while unlinked. */
    WatchLink prev;
    WatchLink next;

    WatchNode(DelayedOperation operation, Watchers watchers, WatchNode nextOfOperation) {
        this.operation = operation;
        this.watchers = watchers;
        this.nextOfOperation = nextOfOperation;
    }
}
