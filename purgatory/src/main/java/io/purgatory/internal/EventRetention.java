package io.purgatory.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import io.purgatory.timer.TimerTask;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * The early events of {@link KeyedWaits}: the last value handed over for each key, kept for a
 * window so that a wait registered just after its event still gets it. At most
 * {@code maxEntries} keys are kept; beyond, the oldest event is dropped (counted). Each event
 * leaves when its window ends, by an entry on the waits' own timer; one that leaves having
 * answered no wait is handed to the {@code unused} sink once. O(1) per event; thread-safe.
 *
 * <p>A second instance is the recent ends of waits (X4): the keys on which a wait timed out or
 * was cancelled within the late window, each {@link #remember remembered} as an event with no
 * value, accounted for at once, so none is ever handed out.
 */
public final class EventRetention<V> {

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
     * (X3) An event is unused when it has left the map (window ended, replaced, evicted), no
     *      thread holds it, and it was never accounted for (it answered a wait when handed over
     *      or from the retention, or was told late on arrival). Whoever holds it (the caller of
     *      complete, from retain to release; a submission's try, from hold to release) may still
     *      see it answer a wait, so the verdict waits for the last holder: the holders, the
     *      flags and the verdict change together under this monitor, and the one change that
     *      makes an event unused hands it out, exactly once, to the sink, called after the
     *      monitor is released. An event dropped by close() is never handed out.
     * (X4) The recent ends of waits are this map too, for the same reason (memory bounded by count
     *      and by time): a key whose wait ended is put as an event that no thread holds and that is
     *      accounted for, so it is never handed out; a newer end of its key replaces it, the
     *      oldest is forgotten first beyond maxEntries (counted as evicted), and it leaves when its
     *      window ends. An event handed over for such a key is told late (KeyedEvents' X5).
     * (X6) The end of an event's window is scheduled before the monitor is taken, never under it:
     *      a schedule with no delay left runs its entry on this thread at once, and that ends the
     *      window under this monitor. A window that ends before its event is put leaves it out of
     *      the map (`ended`), as if it had been put and had left at once.
     */

    private final String name;
    private final long windowMs;
    private final int maxEntries;
    private final RuntimeCore runtime;
    private final BiConsumer<Object, Object> unused;
    @GuardedBy("this")
    private final LinkedHashMap<Object, Event<V>> events = new LinkedHashMap<>();
    private final LongAdder evicted = new LongAdder();
    private final LongAdder hits = new LongAdder();
    @GuardedBy("this")
    private boolean closed;

    /** Retention for {@code windowMs}, at most {@code maxEntries} keys; {@code unused} gets each unused event (X3). */
    EventRetention(String name, long windowMs, int maxEntries, RuntimeCore runtime, BiConsumer<Object, Object> unused) {
        this.name = name;
        this.windowMs = windowMs;
        this.maxEntries = maxEntries;
        this.runtime = runtime;
        this.unused = unused;
    }

    /**
     * Keeps {@code value}, at {@code position}, as {@code key}'s last event for the window (X1,
     * X2). Returns the event, held by the caller until it calls {@link #release} (X3), or null if
     * it was not kept (closed).
     */
    Event<V> retain(Object key, V value, long position) {
        Event<V> event = new Event<>(this, key, value, position, windowMs);
        try { // outside the monitor (X6)
            runtime.schedule(event, UserCode.NO_TIME);
        } catch (IllegalStateException timerClosed) {
            return null; // the timer could never end its window: keep nothing
        } catch (RuntimeException | Error timerFailure) { // a timer of the user's that throws: keep nothing
            UserCode.log(name, "the timer refused the window of an early event or of a wait's end; it is not kept",
                    timerFailure);
            return null;
        }
        Event<V> replacedUnused = null;
        Event<V> evictedUnused = null;
        boolean kept = false;
        try {
            synchronized (this) {
                if (!closed) {
                    Event<V> previous = events.remove(key);
                    if (previous != null) {
                        replacedUnused = leave(previous);
                    }
                    if (event.ended) { // its window ended before it was put (X6)
                        event.left = true;
                    } else {
                        events.put(key, event);
                        if (events.size() > maxEntries) {
                            Iterator<Event<V>> oldest = events.values().iterator();
                            Event<V> dropped = oldest.next();
                            oldest.remove();
                            evicted.increment();
                            evictedUnused = leave(dropped);
                        }
                    }
                    kept = true;
                }
            }
        } finally {
            if (!kept) { // closed, or the key's hashCode or equals threw: off the timer (X1)
                event.cancel();
            }
            handOut(replacedUnused); // told even when the put failed (X3)
            handOut(evictedUnused);
        }
        return kept ? event : null;
    }

    /** A wait on {@code key} timed out or was cancelled now: remember it for the window, never handed out (X4). */
    public void remember(Object key) {
        Event<V> end = retain(key, null, Long.MIN_VALUE);
        if (end != null) {
            release(end, true);
        }
    }

    /** Whether {@code key} has an event (or an end) kept now. */
    synchronized boolean contains(Object key) {
        return events.containsKey(key);
    }

    /**
     * Looks {@code key} up once, before its wait is submitted, so that a key whose equals or
     * hashCode throws against a retained event fails the call that passed it, not the wait's try.
     *
     * @throws IllegalArgumentException naming the index if the key's equals or hashCode threw
     */
    public synchronized void probe(Object key, int index) {
        try {
            events.get(key);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("watch key at index " + index + " failed against a retained event"
                    + " (its hashCode or equals threw " + e.getClass().getName() + ")", e);
        }
    }

    /** {@code key}'s retained event, held by the caller until it calls {@link #release} (X3); or null. */
    public synchronized Event<V> hold(Object key) {
        Event<V> event = events.get(key);
        if (event != null) {
            event.holders++;
        }
        return event;
    }

    /** The caller no longer holds {@code event}; {@code accounted} if it answered a wait or was told late (X3). */
    public void release(Event<V> event, boolean accounted) {
        Event<V> now;
        synchronized (this) {
            event.holders--;
            event.accounted |= accounted;
            now = unusedNow(event);
        }
        handOut(now);
    }

    /** A wait was answered at registration by a retained event. */
    public void hit() {
        hits.increment();
    }

    /** Drops every event and stops retaining (X1); none is handed out (X3). */
    synchronized void close() {
        closed = true;
        for (Event<V> event : events.values()) {
            event.cancel();
        }
        events.clear();
    }

    /** How long an event is retained. */
    public long windowMs() {
        return windowMs;
    }

    /** Events retained now. */
    public synchronized int size() {
        return events.size();
    }

    /** Waits answered at registration by a retained event. */
    public long hits() {
        return hits.sum();
    }

    /** Events (or ends) dropped before their window ended, for capacity. */
    public long evicted() {
        return evicted.sum();
    }

    /** The timer ended {@code event}'s window. */
    private void expire(Event<V> event) {
        Event<V> now;
        synchronized (this) {
            event.ended = true; // (X6)
            if (event.left || !events.remove(event.key, event)) {
                return; // it left already (replaced, evicted, closed), or was not put yet (X6)
            }
            event.left = true;
            now = unusedNow(event);
        }
        handOut(now);
    }

    /** {@code event}, just taken out of the map, leaves its window; returns it if that makes it unused (X3). */
    @GuardedBy("this")
    private Event<V> leave(Event<V> event) {
        event.cancel();
        event.left = true;
        return unusedNow(event);
    }

    /** {@code event} if it is unused and not handed out yet, marking it handed out (X3); else null. */
    @GuardedBy("this")
    private Event<V> unusedNow(Event<V> event) {
        if (closed || !event.left || event.holders > 0 || event.accounted) {
            return null;
        }
        event.accounted = true; // handed out once
        return event;
    }

    private void handOut(Event<V> event) {
        if (event != null) {
            unused.accept(event.key, event.value);
        }
    }

    /**
     * A retained event, and its expiry on the timer. Its holders and flags are guarded by its
     * retention's monitor (X3).
     */
    public static final class Event<V> extends TimerTask {
        private final EventRetention<V> retention;
        private final Object key;
        private final V value;
        private final long position;
        /** Threads that hold it (X3): the caller of complete until its visit is done, submissions trying it. */
        private int holders;
        /** Out of the map: its window ended, or it was replaced or evicted. */
        private boolean left;
        /** It answered a wait, was told late, or was handed out as unused: never handed out (again). */
        private boolean accounted;
        /** Its window ended: the timer ran it (X6). */
        private boolean ended;

        Event(EventRetention<V> retention, Object key, V value, long position, long windowMs) {
            super(windowMs);
            this.retention = retention;
            this.key = key;
            this.value = value;
            this.position = position;
            this.holders = 1; // its creator's, the caller of complete (X3)
        }

        /** The event's value. */
        public V value() {
            return value;
        }

        /** The event's position, or Long.MIN_VALUE. */
        public long position() {
            return position;
        }

        @Override
        public void run() {
            retention.expire(this);
        }
    }
}
