package io.purgatory.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import io.purgatory.timer.TimerTask;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The keys of {@link KeyedWaits} on which a wait timed out or was cancelled within a window, so
 * that an event arriving for such a key is told late rather than unanswered. At most
 * {@code maxKeys} keys are kept; beyond, the oldest end is forgotten first (counted). Each key
 * leaves when its window ends, by an entry on the waits' own timer. O(1) per end and per lookup;
 * thread-safe, one monitor held around map changes and reads only.
 */
public final class RecentEnds {

    /*
     * Implementation notes.
     *
     * (X4) `ends` holds exactly the keys remembered, oldest end first (a key's newer end replaces
     *      its older one and moves to the end), at most maxKeys of them; each one it holds has its
     *      expiry on the timer, and one it no longer holds has none. The same shape as the early
     *      events' map (X1), for the same reason: memory bounded by count and by time. Its window
     *      is scheduled outside the monitor, as the early events' (X6).
     */

    private final String name;
    private final long windowMs;
    private final int maxKeys;
    private final RuntimeCore runtime;
    @GuardedBy("this")
    private final LinkedHashMap<Object, End> ends = new LinkedHashMap<>();
    private final LongAdder forgotten = new LongAdder();
    @GuardedBy("this")
    private boolean closed;

    RecentEnds(String name, long windowMs, int maxKeys, RuntimeCore runtime) {
        this.name = name;
        this.windowMs = windowMs;
        this.maxKeys = maxKeys;
        this.runtime = runtime;
    }

    /**
     * A wait on {@code key} timed out or was cancelled now: remember it for the window (X4).
     */
    public void ended(Object key) {
        End end = new End(this, key, windowMs);
        String refused = "the timer refused the window of a wait's end; it is not remembered";
        if (!EventRetention.schedule(runtime, name, end, refused)) {
            return;
        }
        boolean kept = false;
        try {
            synchronized (this) {
                if (!closed) {
                    End previous = ends.remove(key);
                    if (previous != null) {
                        previous.cancel();
                    }
                    if (!end.ended) { // else its window ended before it was put (X6)
                        ends.put(key, end);
                        if (ends.size() > maxKeys) {
                            Iterator<End> oldest = ends.values().iterator();
                            oldest.next().cancel();
                            oldest.remove();
                            forgotten.increment();
                        }
                    }
                    kept = true;
                }
            }
        } finally {
            if (!kept) { // closed, or the key's hashCode or equals threw: off the timer (X4)
                end.cancel();
            }
        }
    }

    /** Whether a wait on {@code key} timed out or was cancelled within the window (and is still remembered). */
    synchronized boolean endedRecently(Object key) {
        return ends.containsKey(key);
    }

    /** Forgets every end and stops remembering (X4). */
    synchronized void close() {
        closed = true;
        for (End end : ends.values()) {
            end.cancel();
        }
        ends.clear();
    }

    /** Keys remembered now. */
    public synchronized int size() {
        return ends.size();
    }

    /** Ends forgotten before their window ended, because too many keys were remembered. */
    public long forgotten() {
        return forgotten.sum();
    }

    private synchronized void expire(End end) {
        end.ended = true; // (X6)
        ends.remove(end.key, end);
    }

    /** A remembered end, and its expiry on the timer. */
    private static final class End extends TimerTask {
        private final RecentEnds owner;
        private final Object key;
        /** Its window ended: the timer ran it (X6). Guarded by its owner's monitor. */
        private boolean ended;

        End(RecentEnds owner, Object key, long windowMs) {
            super(windowMs);
            this.owner = owner;
            this.key = key;
        }

        @Override
        public void run() {
            owner.expire(this);
        }
    }
}
