package io.purgatory.internal;

import io.purgatory.PurgatoryFullException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A purgatory's bound on pending operations ({@code maxPending}): a slot per submitted operation,
 * taken before its submission's claim and freed exactly once, by its settle or by the undoing of
 * its failed submission (Engine N1). O(1); no bound costs nothing.
 */
final class Admission {

    private final String name;
    private final int maxPending;
    private final PurgatoryCounters counters;
    /** Slots taken; null without a bound. */
    private final AtomicInteger slots;

    Admission(String name, int maxPending, PurgatoryCounters counters) {
        this.name = name;
        this.maxPending = maxPending;
        this.counters = counters;
        this.slots = maxPending > 0 ? new AtomicInteger() : null;
    }

    /**
     * Takes a slot.
     *
     * @throws PurgatoryFullException (counted as a rejection) if all {@code maxPending} are taken
     */
    void take() {
        if (slots != null && slots.incrementAndGet() > maxPending) {
            slots.decrementAndGet();
            counters.rejected();
            throw new PurgatoryFullException(name, maxPending);
        }
    }

    /** Frees a slot taken by {@link #take()}. */
    void free() {
        if (slots != null) {
            slots.decrementAndGet();
        }
    }
}
