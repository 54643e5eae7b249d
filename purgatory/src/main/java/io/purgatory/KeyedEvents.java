package io.purgatory;

import io.purgatory.UnansweredEventListener.Kind;
import io.purgatory.timer.Timer;
import java.util.concurrent.atomic.LongAdder;

/**
 * The events side of one {@link KeyedWaits}: the early events it retains, the recent ends of
 * waits that tell a late event, and the events that found no wait, counted by kind and told to
 * the user's {@link UnansweredEventListener} if there is one (called like any user code: whatever
 * it throws is logged). Also the facade's metrics readings. O(1) per event; thread-safe.
 */
final class KeyedEvents<V> implements EventReadings {

    /*
     * Implementation notes.
     *
     * (X5) Each event handed over is told at most once, as one kind: late on arrival if it
     *      answered no wait and a wait on its key ended within the late window (RecentEnds);
     *      else unanswered, on arrival if it was not retained, or when it leaves the retention
     *      unused (X3). A late event that is retained is accounted for, so never told unanswered
     *      after. Never tagged, logged or counted by key: the key goes to the listener only.
     */

    private final String name;
    private final UnansweredEventListener listener;
    /** The early events, or null. */
    private final EventRetention<V> retention;
    /** The recent ends of waits, or null: no event is then late. */
    private final RecentEnds ends;
    private final LongAdder unanswered = new LongAdder();
    private final LongAdder late = new LongAdder();

    /**
     * The events of the waits named {@code name}, on {@code timer}: early events kept for
     * {@code retainWindowMs} if positive, ends remembered for {@code lateWindowMs} if positive;
     * {@code listener} may be null.
     */
    KeyedEvents(String name, Timer timer, long retainWindowMs, int retainMaxEntries, long lateWindowMs,
                int lateMaxKeys, UnansweredEventListener listener) {
        this.name = name;
        this.listener = listener;
        this.retention = retainWindowMs > 0
                ? new EventRetention<>(name, retainWindowMs, retainMaxEntries, timer, this::unused) : null;
        this.ends = lateWindowMs > 0 ? new RecentEnds(name, lateWindowMs, lateMaxKeys, timer) : null;
    }

    /** An event arrives: retained if early events are on; returns it, held (X3), or null. Before the visit (X2). */
    EventRetention.Event<V> arriving(Object key, V value, long position) {
        return retention == null ? null : retention.retain(key, value, position);
    }

    /**
     * The event {@code value} for {@code key} answered {@code answered} waits; {@code kept} is
     * what {@link #arriving} returned, released here (X3, X5).
     */
    void handedOver(Object key, V value, int answered, EventRetention.Event<V> kept) {
        boolean accounted = answered > 0;
        try {
            if (!accounted) {
                if (ends != null && ends.endedRecently(key)) {
                    accounted = true;
                    late.increment();
                    tell(key, value, Kind.LATE);
                } else if (kept == null) {
                    unused(key, value);
                }
            }
        } finally {
            if (kept != null) {
                retention.release(kept, accounted);
            }
        }
    }

    /** The visit of an event failed (its key threw): {@code kept} is released, told nothing (X5). */
    void notHandedOver(EventRetention.Event<V> kept) {
        if (kept != null) {
            retention.release(kept, true);
        }
    }

    /** The early events, or null. */
    EventRetention<V> retention() {
        return retention;
    }

    /** The recent ends of waits, or null. */
    RecentEnds ends() {
        return ends;
    }

    /** Drops the early events and the recent ends; nothing is told after (X3). */
    void close() {
        if (retention != null) {
            retention.close();
        }
        if (ends != null) {
            ends.close();
        }
    }

    @Override
    public boolean retains() {
        return retention != null;
    }

    @Override
    public long retained() {
        return retention == null ? 0 : retention.size();
    }

    @Override
    public long hits() {
        return retention == null ? 0 : retention.hits();
    }

    @Override
    public long evicted() {
        return retention == null ? 0 : retention.evicted();
    }

    @Override
    public long unanswered() {
        return unanswered.sum();
    }

    @Override
    public long late() {
        return late.sum();
    }

    /** An event answered no wait and was not late: on arrival, or as it left the retention unused (X3, X5). */
    private void unused(Object key, Object value) {
        unanswered.increment();
        tell(key, value, Kind.UNANSWERED);
    }

    /** Tells the listener, if any; whatever it throws is logged and goes no further. */
    private void tell(Object key, Object value, Kind kind) {
        UnansweredEventListener l = listener;
        if (l == null) {
            return;
        }
        try {
            l.onUnanswered(name, key, value, kind);
        } catch (Throwable error) {
            try {
                UserCode.log(name, "its UnansweredEventListener threw; the " + kind + " event is counted regardless",
                        error);
            } catch (Throwable reportFailed) {
                // the stack ran out while reporting: the failure is dropped, never thrown
            }
        }
    }
}
