package io.purgatory;

/**
 * An operation's place on the watch list of one of its keys, when it watches several. (Watching
 * one key, the operation is its own node, so a single-key operation allocates none.) An
 * operation's nodes are chained through {@code nextOfOperation}, from its {@code watchNext}.
 * A {@link PositionNode} is its place in a key's positions instead.
 */
class WatchNode implements WatchLink {

    final DelayedOperation operation;
    final Watchers watchers;
    final WatchNode nextOfOperation;
    /** Guarded by the watcher list's lock; null while unlinked. */
    WatchLink prev;
    WatchLink next;

    WatchNode(DelayedOperation operation, Watchers watchers, WatchNode nextOfOperation) {
        this.operation = operation;
        this.watchers = watchers;
        this.nextOfOperation = nextOfOperation;
    }
}
