package io.purgatory;

/**
 * An operation's place among a key's positioned waits ({@link Watchers}' heap): it waits until the
 * key's position reaches {@code position}. The operation's only node: its {@code watchNext} holds
 * it, as a multi-key operation's holds its first WatchNode. Its list links stay null.
 */
final class PositionNode extends WatchNode {

    final long position;
    /** Its index in the heap, guarded by the shard's lock; -1 once unlinked. */
    int index = -1;

    PositionNode(DelayedOperation operation, Watchers watchers, long position) {
        super(operation, watchers, null);
        this.position = position;
    }
}
