package io.purgatory;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The early events of {@link KeyedWaits}: the last value handed over for each key, kept for a
 * window so that a wait registered just after its event still gets it. At most
 * {@code maxEntries} keys are kept; beyond, the oldest event is dropped (counted). Each event
 * leaves when its window ends, by an entry on the waits' own timer.
 */
final class EventRetention<V> implements EventReadings {

    /*
     * Implementation notes.
     *
     * (X1) `events` holds exactly the retained events, oldest first (a key's newer event replaces
     *      its older one and moves to the end), at most maxEntries of them; each one it holds has
     *      its expiry on the timer, and one it no longer holds has none (cancelled on removal).
     *      All of it is guarded by this object's monitor, held only around map changes and reads.
     * (X2) An event is retained before it is offered to the waits watching its key, and a
     *      submission tries the retention after it is watched (its second try): a wait registered
     *      while an event is handed over is answered by one or the other, so no event is lost
     *      inside its window.
     */

    private final long windowMs;
    private final int maxEntries;
    private final Timer timer;
    @GuardedBy("this")
    private final LinkedHashMap<Object, Event<V>> events = new LinkedHashMap<>();
    private final LongAdder evicted = new LongAdder();
    private final LongAdder hits = new LongAdder();
    @GuardedBy("this")
    private boolean closed;

    EventRetention(long windowMs, int maxEntries, Timer timer) {
        this.windowMs = windowMs;
        this.maxEntries = maxEntries;
        this.timer = timer;
    }

    /** Keeps {@code value}, at {@code position}, as {@code key}'s last event for the window (X1, X2). */
    synchronized void retain(Object key, V value, long position) {
        if (closed) {
            return;
        }
        Event<V> event = new Event<>(this, key, value, position, windowMs);
        Event<V> previous = events.remove(key);
        if (previous != null) {
            previous.cancel();
        }
        try {
            timer.add(event);
        } catch (IllegalStateException timerClosed) {
            return; // the timer could never end its window: keep nothing
        }
        events.put(key, event);
        if (events.size() > maxEntries) {
            Iterator<Event<V>> oldest = events.values().iterator();
            oldest.next().cancel();
            oldest.remove();
            evicted.increment();
        }
    }

    /** {@code key}'s retained event, or null. */
    synchronized Event<V> lastEvent(Object key) {
        return events.get(key);
    }

    /** A wait was answered at registration by a retained event. */
    void hit() {
        hits.increment();
    }

    /** Drops every event and stops retaining (X1). */
    synchronized void close() {
        closed = true;
        for (Event<V> event : events.values()) {
            event.cancel();
        }
        events.clear();
    }

    long windowMs() {
        return windowMs;
    }

    /** Events retained now. */
    synchronized int size() {
        return events.size();
    }

    @Override
    public long retained() {
        return size();
    }

    @Override
    public long hits() {
        return hits.sum();
    }

    @Override
    public long evicted() {
        return evicted.sum();
    }

    private synchronized void expire(Event<V> event) {
        events.remove(event.key, event);
    }

    /** A retained event, and its expiry on the timer. */
    static final class Event<V> extends TimerTask {
        private final EventRetention<V> retention;
        private final Object key;
        private final V value;
        private final long position;

        Event(EventRetention<V> retention, Object key, V value, long position, long windowMs) {
            super(windowMs);
            this.retention = retention;
            this.key = key;
            this.value = value;
            this.position = position;
        }

        V value() {
            return value;
        }

        long position() {
            return position;
        }

        @Override
        public void run() {
            retention.expire(this);
        }
    }
}
