package io.purgatory.internal;

/**
 * Where an operation watches, as its {@code watching} field holds it (Watchers K3): the list of
 * its one key ({@link Watchers}), which it is linked on itself; or the first of its
 * {@link WatchNode}s, one per key, when it watches several keys or waits at a position.
 */
abstract class Watching {

    /** Unlinks {@code op}, which watches here, from every list it is on; returns how many it was on. */
    abstract int unwatchAll(Operation op);

    /** The keys of the operation watching here, in the order it was given them (read with no lock: they never change)
            . */
    abstract java.util.List<Object> keys();

    /** The position it waits for, if it waits at one; else null. */
    abstract Long position();
}
