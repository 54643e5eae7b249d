package io.purgatory.timer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Back-pressure on a {@link SystemTimer}'s adds: while its expiries run more than a bound behind
 * their deadlines, an add waits for them to catch up, so that a thread adding faster than the
 * timer can expire slows to what it can. Adds stay lock-free; a wait is bounded and never happens
 * on the timer's own threads. Thread-safe.
 */
final class BackPressure {

    /*
     * Implementation notes.
     *
     * Kafka's timer gets back-pressure by accident: its add takes a read lock that the flush of a
     * due bucket holds for writing. Here it is explicit, measured in time, and off by default.
     *
     * (G1) The lag at a time t is t minus the earlier of two due times: that of the earliest
     *      bucket the driver has not expired (TimerEngine.nextDueMs), and, while hand-offs wait in
     *      the executor (handed and not started), that of the oldest of them (about the first
     *      task's deadline of the last one to start: hand-offs leave in due order, but for one the
     *      executor runs inside the call that handed it over, which moves nothing). Both grow with
     *      real time when the driver or the executor stalls, and read 0 once they keep up.
     * (G2) A wait ends when the lag is down to half the bound, or after the bound itself, or on
     *      an interrupt (left set) or a close, whichever comes first; it never happens on the
     *      driver's thread (also between its advances: a reaper's own work) or a thread running
     *      this timer's hand-off, whose progress is what it would wait for. So a stuck executor
     *      slows adds down to one per bound, never stops them. A library's own entries
     *      (EntryAccess.schedule) never wait: only the work a user's thread brings is held back.
     */

    private static final long PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** Set while the current thread runs a hand-off of this timer, however nested (G2). */
    private final ThreadLocal<Boolean> running = new ThreadLocal<>();
    private final TimerEngine engine;
    private final long boundMs;
    private final long maxWaitNanos;
    /** Hand-offs made and not started (G1). */
    private final AtomicLong waiting = new AtomicLong();
    private final LongAdder waits = new LongAdder();
    private final LongAdder waitedNanos = new LongAdder();
    /** The due time of the oldest hand-off waiting, while one waits (G1). */
    private volatile long oldestWaitingDueMs;

    BackPressure(TimerEngine engine, long boundMs) {
        this.engine = engine;
        this.boundMs = boundMs;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(boundMs);
    }

    /** How far behind their deadlines expiries run now, in ms (G1). */
    long lagMs() {
        long nowMs = engine.nowMs();
        long lag = engine.lagMs(nowMs);
        return waiting.get() > 0 ? Math.max(lag, nowMs - oldestWaitingDueMs) : lag;
    }

    /** Called before an add, or by a library before it takes work: waits while the lag is above the bound (G2). */
    void await() {
        if (lagMs() <= boundMs || engine.isDriverThread() || running.get() != null) {
            return;
        }
        long start = System.nanoTime();
        try {
            do {
                LockSupport.parkNanos(this, PARK_NANOS);
            } while (lagMs() > boundMs / 2 && System.nanoTime() - start < maxWaitNanos
                    && !Thread.currentThread().isInterrupted() && !engine.isClosed()); // (G2)
        } finally {
            waits.increment();
            waitedNanos.add(System.nanoTime() - start);
        }
    }

    /** A hand-off whose first task is {@code first} is made (G1). */
    void handedOff(TimerEntry first) {
        if (waiting.getAndIncrement() == 0) {
            oldestWaitingDueMs = first.deadlineMs;
        }
    }

    /**
     * A hand-off whose first task is {@code first} starts on the current thread; {@code inline} if
     * the executor runs it inside the call that handed it over, ahead of any still waiting, so it
     * does not move the oldest due time (G1). Returns whether this thread was running a hand-off
     * of this timer already (one runs inside another), for {@link #runFinished} (G2).
     */
    boolean runStarting(TimerEntry first, boolean inline) {
        boolean outer = running.get() != null;
        running.set(Boolean.TRUE);
        long dueMs = first.deadlineMs;
        if (!inline && oldestWaitingDueMs != dueMs) {
            oldestWaitingDueMs = dueMs;
        }
        waiting.decrementAndGet();
        return outer;
    }

    /** The hand-off that started on the current thread is done; {@code outer} is what runStarting returned (G2). */
    void runFinished(boolean outer) {
        if (!outer) {
            running.remove(); // else a hand-off of this timer ran inside another's, which goes on
        }
    }

    /** A hand-off the executor refused: the driver runs it instead (G1). */
    void refused() {
        waiting.decrementAndGet();
    }

    /** The adds that waited so far. */
    long waits() {
        return waits.sum();
    }

    /** The time adds spent waiting so far, in ns. */
    long waitedNanos() {
        return waitedNanos.sum();
    }
}
