package io.purgatory.internal;

import io.purgatory.timer.TimerEntry;

/**
 * The engine's side of an operation: what {@code io.purgatory.DelayedOperation} extends, so that a
 * pending operation is one object, its own timer entry and, on one key, its own list node. Its
 * fields are the engine's, typed by what they hold, and reachable from this package only; its one
 * protected surface is the contract a subclass implements. Not a user API (the module does not
 * export this package).
 */
public abstract class Operation extends TimerEntry {

    /*
     * Implementation notes.
     *
     * Memory: a pending operation watched on one key is this object alone (its timer entry's
     * fields, then these five), 72 bytes with compressed references; the watch list node and the
     * timer entry are the object itself. On several keys, or at a position, it has a WatchNode
     * per key, chained from `watching`.
     */

    /** Its life in one word (OperationState); written by CAS only. */
    volatile long state;
    /** Where its settle is booked: its engine, or an WaitOwner over it (OperationState O6). */
    Owner owner;
    /**
     * Where it watches (Watchers K3): the list of its one key, which it is linked on itself
     * through prev and next; or the first of its WatchNodes (several keys, or a position); null
     * while it watches nothing.
     */
    Watching watching;
    /** Its links on the list of its one key; null otherwise (Watchers K2). */
    Operation prev;
    Operation next;

    /** An operation due {@code delayMs} after it is watched (the timer's delay rule). */
    protected Operation(long delayMs) {
        super(delayMs);
    }

    /** Checks whether the operation can complete; if so, completes it. See {@code DelayedOperation}. */
    protected abstract boolean tryComplete();

    /** Called exactly once when the operation completes or expires. */
    protected abstract void onComplete();

    /** Called after {@link #onComplete()} when the operation expired. */
    protected abstract void onExpiration();

    /** Called exactly once if the operation is cancelled, instead of the other callbacks. */
    protected void onCancel() {
    }

    /**
     * What a submitted operation knows of the purgatory that holds it: where its settle is booked,
     * where its callbacks' failures go, and whom its expiry keeps busy. The engine implements it; an
     * {@link WaitOwner} wraps the engine for a wait an observer watches. The operation stores it
     * under its submission's claim (OperationState O6), so nothing walks the lists to find it.
     */
    interface Owner {

        /** The engine itself: what expiries in flight are counted against (an observed owner wraps it). */
        default Owner engine() {
            return this;
        }

        /** The tenant the operation's slot is held for (Admission S1); null if none. */
        default Object tenant() {
            return null;
        }

        /** The purgatory's name, for messages. */
        String name();

        /**
         * Books the settle of {@code op}, submitted here, with {@code outcome}: off every watch list
         * and the timer, its slot freed, counted and timed. Called exactly once per settle, before its
         * callbacks; never throws.
         */
        void settled(Operation op, int outcome, long state);

        /** Counts and reports {@code error}, thrown by {@code callback} of {@code op}. Never throws. */
        void failed(Operation op, int callback, Throwable error);

        /** An expiry of one of its operations begins on the current thread; a close waits for it to end. */
        void expiryBegins();

        /** The expiry begun by {@link #expiryBegins()} on this thread ended: settled (or lost), callbacks run. */
        void expiryEnds();
    }

    /**
     * Where an operation watches, as its {@code watching} field holds it (Watchers K3): the list of
     * its one key ({@link Watchers}), which it is linked on itself; or the first of its
     * {@link WatchNode}s, one per key, when it watches several keys or waits at a position.
     */
    abstract static class Watching {
    }
}
