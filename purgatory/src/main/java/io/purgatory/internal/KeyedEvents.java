package io.purgatory.internal;

import java.util.concurrent.atomic.LongAdder;

/**
 * The events side of one {@link KeyedWaits}: the early events it retains, the recent ends of
 * waits that tell a late event, and the events that found no wait, counted by kind and told to
 * the user's {@link UnansweredEventListener} if there is one (called like any user code: whatever
 * it throws is logged). Also the facade's metrics readings. O(1) per event; thread-safe.
 */
public final class KeyedEvents<V> {

    /*
     * Implementation notes.
     *
     * (X5) Each event handed over is told at most once, as one kind: late on arrival if it
     *      answered no wait and a wait on its key ended within the late window (the ends, X4);
     *      else unanswered, on arrival if it was not retained, or when it leaves the retention
     *      unused (X3). A late event that is retained is accounted for, so never told unanswered
     *      after. Never tagged, logged or counted by key: the key goes to the listener only.
     */

    private final String name;
    private final UserCode.EventListener listener;
    /** The early events, or null. */
    private final EventRetention<V> retention;
    /** The recent ends of waits (X4), or null: no event is then late. */
    private final EventRetention<Object> ends;
    private final LongAdder unanswered = new LongAdder();
    private final LongAdder late = new LongAdder();

    /**
     * The events of the waits named {@code name}, on {@code timer}: early events kept for
     * {@code retainWindowMs} if positive, ends remembered for {@code lateWindowMs} if positive;
     * {@code listener} may be null.
     */
    public KeyedEvents(String name, RuntimeCore runtime, long retainWindowMs, int retainMaxEntries, long lateWindowMs,
                       int lateMaxKeys, UserCode.EventListener listener) {
        this.name = name;
        this.listener = listener;
        this.retention = retainWindowMs > 0
                ? new EventRetention<>(name, retainWindowMs, retainMaxEntries, runtime, this::unused) : null;
        this.ends = lateWindowMs > 0
                ? new EventRetention<>(name, lateWindowMs, lateMaxKeys, runtime, (key, none) -> { }) : null; // (X4)
    }

    /**
     * Hands an event over: retains it (before the waits are visited, X2), hands it to the waits
     * on {@code key} of {@code engine} with {@code visitor}, and tells it if it found none (X5).
     * Returns how many waits it answered.
     */
    public int handOver(Engine engine, Object key, V value, long position, Visitor visitor) {
        EventRetention.Event<V> kept = retention == null ? null : retention.retain(key, value, position); // held (X3)
        boolean accounted = true; // if the visit throws (the key's hashCode or equals), told nothing (X5)
        try {
            int answered = engine.visit(key, Visit.REACHED, position, value, visitor);
            accounted = answered > 0;
            if (!accounted && ends != null && ends.contains(key)) {
                accounted = true;
                late.increment();
                tell(key, value, true);
            } else if (!accounted && kept == null) {
                unused(key, value);
            }
            return answered;
        } finally {
            if (kept != null) {
                retention.release(kept, accounted);
            }
        }
    }

    /** The early events, or null. */
    public EventRetention<V> retention() {
        return retention;
    }

    /** The recent ends of waits (X4), or null. */
    public EventRetention<Object> ends() {
        return ends;
    }

    /** Drops the early events and the recent ends; nothing is told after (X3). */
    public void close() {
        if (retention != null) {
            retention.close();
        }
        if (ends != null) {
            ends.close();
        }
    }

    /**
     * Looks each key up among the retained events, if any, before its wait is submitted (EventRetention#probe).
     *
     * @throws IllegalArgumentException naming the index of a key whose equals or hashCode threw
     */
    public void probe(Object key, Object[] keys) {
        if (retention != null) {
            for (int i = 0, n = key != null ? 1 : keys.length; i < n; i++) {
                retention.probe(key != null ? key : keys[i], i);
            }
        }
    }

    /** Events that answered no wait and were not late. */
    public long unanswered() {
        return unanswered.sum();
    }

    /** Events that answered no wait, arriving after a wait on their key ended. */
    public long late() {
        return late.sum();
    }

    /** An event answered no wait and was not late: on arrival, or as it left the retention unused (X3, X5). */
    private void unused(Object key, Object value) {
        unanswered.increment();
        tell(key, value, false);
    }

    /** Tells the listener, if any; whatever it throws is logged and goes no further (UserCode U1). */
    private void tell(Object key, Object value, boolean late) {
        UserCode.EventListener l = listener;
        if (l != null) {
            UserCode.run(() -> l.unanswered(name, key, value, late), name, "its UnansweredEventListener threw; the "
                    + (late ? "late" : "unanswered") + " event is counted regardless");
        }
    }
}
