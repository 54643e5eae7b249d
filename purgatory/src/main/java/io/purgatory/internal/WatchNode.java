package io.purgatory.internal;

/**
 * An operation's place on the list of one of its keys, when it watches several (watching one
 * key, the operation is linked on that key's list itself, so a single-key operation allocates
 * none). An operation's nodes are chained through {@code nextOfOperation} from its
 * {@code watching}. A {@link PositionNode} is its place in a key's positions instead.
 */
class WatchNode extends Watching {

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

    @Override
    java.util.List<Object> keys() {
        java.util.ArrayList<Object> keys = new java.util.ArrayList<>();
        for (WatchNode node = this; node != null; node = node.nextOfOperation) {
            keys.add(node.watchers.key);
        }
        java.util.Collections.reverse(keys); // the chain starts at the key linked last
        return keys;
    }

    @Override
    Long position() {
        for (WatchNode node = this; node != null; node = node.nextOfOperation) {
            if (node instanceof PositionNode positioned) {
                return positioned.position;
            }
        }
        return null;
    }

    /** Unlinks every node of the chain this node starts (K3); returns how many were linked. */
    @Override
    int unwatchAll(Operation op) {
        int unlinked = 0;
        for (WatchNode node = this; node != null; node = node.nextOfOperation) {
            if (node.watchers.watcherList.unlink(node)) {
                unlinked++;
            }
        }
        return unlinked;
    }
}
