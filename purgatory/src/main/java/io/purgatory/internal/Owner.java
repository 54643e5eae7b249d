package io.purgatory.internal;

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
