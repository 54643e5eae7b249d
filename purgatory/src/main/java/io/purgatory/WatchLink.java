package io.purgatory;

/**
 * A place on one key's watch list: a {@link DelayedOperation} on its first key, a
 * {@link WatchNode} on each of its other keys. Only {@link Watchers} reads or writes the links.
 */
interface WatchLink {
}
