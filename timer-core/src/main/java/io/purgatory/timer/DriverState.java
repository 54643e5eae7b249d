package io.purgatory.timer;

import io.purgatory.timer.internal.DueVisitor;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * What only the thread driving a {@link TimerEngine} touches: the wheels, the queue of buckets in
 * due order and the entries expired but not handed over yet. Each method runs under the engine's
 * driver lock: apply the inbox, expire what is due, cascade ahead, cancel everything at close.
 *
 * <p>Not thread-safe: confined to the driver.
 */
final class DriverState {

    /*
     * Implementation notes.
     *
     * (E8) Expired entries leave through DueTasks (B1-B4): in batches for SystemTimer, one by one
     *      for ManualTimer; every turn ends by flushing them. A helping drain (TimerEngine E7) is
     *      not a turn: it expires nothing, leaving an entry already due on the inbox.
     * (E9) No failure loses an entry: one that fails to be placed (an Error as a wheel grows) goes
     *      back on the inbox, the rest are still placed, and the first failure is rethrown once
     *      E1-E2 hold again. A helping drain leaves such a failure to the driver.
     */

    /** Entries re-added per step of cascading ahead while nothing is due, between checks for due work. */
    private static final int EARLY_BATCH = 1024;
    /** The most entries a paced step of cascading ahead re-adds, after a turn that expired something. */
    private static final int PACED_BATCH = 8192;

    private final TimerEngine engine;
    private final PriorityQueue<TimerTaskList> queue = new PriorityQueue<>(TimerTaskList.DUE_ORDER);
    private final TimingWheel wheel;
    private final DueTasks due;
    private final Consumer<TimerEntry> reinsert = this::reinsert;
    /** The first failure to place an entry in this turn, rethrown once the turn is consistent (E9). */
    private Throwable placeFailure;

    DriverState(TimerEngine engine, TimerSettings settings, Dispatcher dispatcher, boolean batchDue) {
        this.engine = engine;
        this.due = new DueTasks(dispatcher, engine.size, batchDue);
        this.wheel = new TimingWheel(settings.tickMs(), settings.wheelSize(), 0L, queue);
    }

    /**
     * Applies the inbox, then expires every bucket that is due, in deadline order, handing due
     * entries to the dispatcher. Returns true iff at least one bucket was processed.
     */
    boolean expireDue() {
        boolean processed = false;
        try {
            for (;;) {
                if (engine.isClosed()) {
                    cancelAll(); // (E6)
                    return processed;
                }
                drainInbox(false);
                rethrowPlaceFailure(); // (E9)
                long nowMs = engine.nowMs();
                TimerTaskList bucket = queue.peek();
                engine.publishNextDue(bucket == null ? Long.MAX_VALUE : bucket.expirationMs());
                if (bucket == null || bucket.expirationMs() > nowMs) {
                    wheel.advanceClock(nowMs);
                    return processed;
                }
                queue.poll();
                processed = true;
                wheel.advanceClock(bucket.expirationMs());
                bucket.flush(reinsert);
                due.flush(); // (E1), (E8): one bucket per batch
                rethrowPlaceFailure(); // (E9)
            }
        } finally {
            due.flush(); // (E1), (E8)
        }
    }

    /**
     * A drain by a thread that found no driver (TimerEngine E7): it places entries and unlinks
     * cancelled ones, and expires none, so it hands nothing over; a failure to place is left to
     * the driver (E9).
     */
    void helpDrain() {
        if (!engine.isClosed()) {
            drainInbox(true);
            placeFailure = null; // (E9): the entries are back on the inbox; the driver meets them again
        }
    }

    /**
     * One bounded step of cascading ahead: re-adds the entries of coarser buckets due soon that are
     * behind schedule ({@code paced}, after a turn that expired something), or up to EARLY_BATCH
     * of them (for a driver that found nothing due). Returns true iff it moved an entry; the caller
     * then expires what became due before the next step.
     */
    boolean cascadeAhead(boolean paced) {
        try {
            boolean worked = !engine.isClosed()
                    && EarlyCascade.step(wheel, paced ? PACED_BATCH : EARLY_BATCH, paced, reinsert) > 0;
            rethrowPlaceFailure(); // (E9)
            return worked;
        } finally {
            due.flush(); // (E1), (E8)
        }
    }

    /**
     * Nanoseconds until the earliest bucket is due or an early cascade may start;
     * Long.MAX_VALUE if there is neither.
     */
    long nanosUntilNextWork() {
        TimerTaskList bucket = queue.peek();
        if (bucket == null) {
            return Long.MAX_VALUE;
        }
        long nextMs = Math.min(bucket.expirationMs(), EarlyCascade.nextStartMs(wheel));
        long dueNanos = TimingWheel.saturatedMultiply(nextMs, TimerEngine.NANOS_PER_MS);
        return dueNanos == Long.MAX_VALUE ? Long.MAX_VALUE : dueNanos - engine.nowNanos();
    }

    /** Cancels every scheduled entry; they never run. Returns how many were cancelled (E6). */
    int cancelAll() {
        int[] cancelled = {0};
        Consumer<TimerEntry> cancel = entry -> {
            if (entry.cancelOnClose()) {
                engine.size.decrement();
                cancelled[0]++;
            }
        };
        Inbox inbox = engine.inbox;
        for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
            TimerEntry entry = inbox.take(stripe);
            while (entry != null) {
                TimerEntry next = entry.inboxNext;
                entry.inboxNext = null;
                entry.leaveInbox();
                if (entry.slot != 0) {
                    wheel.unlink(entry);
                }
                cancel.accept(entry);
                entry = next;
            }
        }
        wheel.forEachBucket(bucket -> bucket.flush(cancel));
        queue.clear();
        return cancelled[0];
    }

    /**
     * Shows {@code visitor} the scheduled entries: those on the inbox, then the wheel's bucket by
     * bucket in due order, until it wants none due from a bucket's expiration less a finest tick
     * plus 1 on (a bucket of the finest wheel holds deadlines up to a tick before its expiration, a
     * coarser one from its expiration on: one bound for both). Copies the bucket queue
     * (O(buckets)), changes nothing; returns true.
     */
    boolean visitByDue(DueVisitor visitor) {
        Inbox inbox = engine.inbox;
        for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
            for (TimerEntry t = inbox.peek(stripe); t != null; t = t.inboxNext) { // pushes add above the head read
                if ((t.state() & TimerEntry.LIFECYCLE) == TimerEntry.SCHEDULED) {
                    visitor.visit(t, t.deadlineMs);
                }
            }
        }
        PriorityQueue<TimerTaskList> byDue = new PriorityQueue<>(queue);
        Consumer<TimerEntry> show = t -> {
            if (t.state() == TimerEntry.SCHEDULED) { // not on the inbox (T3): shown above if so
                visitor.visit(t, t.deadlineMs);
            }
        };
        long finestTickMs = wheel.tickMs();
        for (TimerTaskList bucket = byDue.poll(); bucket != null; bucket = byDue.poll()) {
            if (!visitor.wants(bucket.expirationMs() - finestTickMs + 1)) {
                break;
            }
            bucket.forEach(show);
        }
        return true;
    }

    /** The finest wheel (tests). */
    TimingWheel wheel() {
        return wheel;
    }

    /**
     * Checks the wheel's invariants and E1-E2; tests call it in quiescence, with no
     * concurrent add or cancel. Returns the number of entries linked in the wheel.
     */
    long checkInvariants() {
        long linked = wheel.checkInvariants();
        long[] scheduled = {0};
        wheel.forEachBucket(b -> b.forEach(t -> {
            if (t.state() == TimerEntry.SCHEDULED) {
                scheduled[0]++;
            } else if ((t.state() & TimerEntry.IN_INBOX) == 0) {
                throw new IllegalStateException("(T3) linked task neither scheduled nor on the inbox: " + t);
            }
        }));
        Inbox inbox = engine.inbox;
        for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
            for (TimerEntry t = inbox.peek(stripe); t != null; t = t.inboxNext) {
                if ((t.state() & TimerEntry.IN_INBOX) == 0) {
                    throw new IllegalStateException("(T2) task on the inbox without its bit: " + t);
                }
                if ((t.state() & TimerEntry.LIFECYCLE) == TimerEntry.SCHEDULED) {
                    scheduled[0]++;
                }
            }
        }
        for (TimerTaskList b : queue) {
            if (b.expirationMs() <= wheel.currentTimeMs() && inbox.isEmpty()) {
                throw new IllegalStateException("queued bucket already due: " + b);
            }
        }
        if (scheduled[0] != engine.size.sum()) {
            throw new IllegalStateException("(E1/E2) size " + engine.size.sum() + " but " + scheduled[0]
                    + " scheduled tasks are linked or on the inbox");
        }
        return linked;
    }

    /** Applies the inbox; a {@code helping} drain leaves the entries already due on it, for the driver (E7). */
    private void drainInbox(boolean helping) {
        Inbox inbox = engine.inbox;
        TimerEntry forDriver = null;
        for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
            TimerEntry entry = inbox.take(stripe);
            while (entry != null) {
                TimerEntry current = entry;
                entry = current.inboxNext;
                current.inboxNext = null;
                int state = current.leaveInbox(); // (T2): clear the bit, then read the state
                if (current.slot != 0) {
                    wheel.unlink(current);
                }
                if (state != TimerEntry.SCHEDULED) {
                    continue;
                }
                if (!helping || current.deadlineMs > wheel.currentTimeMs()) {
                    placeOrHandBack(current);
                } else if (current.rejoinInbox()) { // (T2): else a change pushed it again
                    current.inboxNext = forDriver;
                    forDriver = current;
                }
            }
        }
        while (forDriver != null) { // pushed once every stripe is taken: this drain does not meet them again
            TimerEntry next = forDriver.inboxNext;
            inbox.push(forDriver, true); // linked nowhere: no dead weight (Inbox I2)
            forDriver = next;
        }
    }

    /** Re-adds an entry from a flushed bucket, unless a pending change (on the inbox) owns it now. */
    private void reinsert(TimerEntry entry) {
        if (entry.state() == TimerEntry.SCHEDULED) { // (T3): not on the inbox
            placeOrHandBack(entry);
        }
    }

    /** Places {@code entry}; if that fails, puts it back on the inbox and keeps the failure (E9). */
    private void placeOrHandBack(TimerEntry entry) {
        try {
            place(entry);
        } catch (Throwable failure) {
            if (entry.rejoinInbox()) { // (T2): set the bit here, so push it here
                engine.inbox.push(entry, false);
            }
            if (placeFailure == null) {
                placeFailure = failure;
            }
        }
    }

    private void place(TimerEntry entry) {
        if (engine.isClosed()) { // (E6)
            if (entry.cancelOnClose()) {
                engine.size.decrement();
            }
            return;
        }
        if (!wheel.add(entry, entry.deadlineMs) && entry.expire()) {
            due.add(entry); // (E1), (E8): still counted until its hand-off
        }
    }

    private void rethrowPlaceFailure() {
        Throwable failure = placeFailure;
        if (failure != null) {
            placeFailure = null;
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw (Error) failure; // place throws nothing checked
        }
    }
}
