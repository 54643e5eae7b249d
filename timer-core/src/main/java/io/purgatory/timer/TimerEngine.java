package io.purgatory.timer;

import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The machinery shared by {@link SystemTimer} and {@link ManualTimer}: a hierarchical timing
 * wheel owned by one driver thread at a time, fed by a lock-free inbox.
 *
 * <p>{@link #schedule} and {@link TimerTask#cancel()} are safe from any thread and lock-free:
 * one CAS on the task's state and, when the wheel must change, one CAS to push the task on the
 * inbox. Everything else runs under the driver lock, taken by {@link #advance} and
 * {@link #runDue}: the driver drains the inbox, moving tasks in or out of buckets, then expires
 * due buckets in deadline order.
 */
final class TimerEngine {

    /*
     * Implementation notes. Netty's ownership (only the driver touches buckets; others hand it
     * tasks through an inbox, Inbox) with Kafka's hierarchy and bucket queue.
     *
     * (E1) size counts this engine's SCHEDULED tasks, less the driver's expiries not yet
     *      subtracted (uncounted), which flushDue subtracts once per batch.
     * (E2) Every SCHEDULED task is linked in the wheel or on the inbox, or both while a change of
     *      it is pending (checkInvariants, in quiescence).
     * (E3) Times are relative to the origin and stay below 2^62 ms: a delay is capped at
     *      MAX_DELAY_MS; ManualTimer.advanceClock saturates the clock.
     * (E4) Never early: a deadline is ceil(now in ms) + delay; a task runs once floor(now) >= it.
     * (E5) No lost wake-up: a parking driver publishes wakeAtMs, then re-reads the inbox; a pusher
     *      pushes, then reads wakeAtMs. One of the two sees the other.
     * (E6) close marks, then sweeps under driverLock; from the mark on the driver cancels instead
     *      of placing. A close from a task on the driving thread only marks; expireDue sweeps.
     * (E7) A push that crosses its stripe's weight (Inbox I2) wakes a parked driver or, with none
     *      driving, drains the inbox itself under tryLock; never from a task on the driving
     *      thread, which may be walking a detached bucket.
     * (E8) Expired tasks leave through DueTasks (B1-B3): in batches for SystemTimer, one by one
     *      for ManualTimer; every turn ends by flushing them.
     * (E9) No failure loses a task: one that fails to be placed (an Error as a wheel grows) goes
     *      back on the inbox, the rest are still placed, and the first failure is rethrown once
     *      E1-E2 hold again. A helping drain leaves such a failure to the driver.
     * (E10) advance bounds its wait in real time, deadlines stay on the engine's clock: a driver
     *      on a clock that does not move by itself still returns.
     */

    private static final long NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long ACTIVE = Long.MIN_VALUE;
    /** Tasks re-added per step of cascading ahead while nothing is due, between checks for due work. */
    private static final int EARLY_BATCH = 1024;
    /** The most tasks a paced step of cascading ahead re-adds, after a turn that expired something. */
    private static final int PACED_BATCH = 8192;

    /** Held by whichever thread drives the wheel. */
    private final ReentrantLock driverLock = new ReentrantLock();
    /** Set on each thread that has driven this engine (advanced it). */
    private final ThreadLocal<Boolean> drove = new ThreadLocal<>();

    private final String name;
    private final Clock clock;
    private final long originNanos;
    private final PriorityQueue<TimerTaskList> queue =
            new PriorityQueue<>(TimerTaskList.DUE_ORDER);
    private final TimingWheel wheel;
    private final Dispatcher dispatcher;
    private final DueTasks due;
    private final LongAdder size = new LongAdder();
    private final Consumer<TimerTask> reinsert = this::reinsert;

    private final Inbox inbox = new Inbox();
    private volatile boolean closed;
    private volatile long wakeAtMs = ACTIVE;
    private volatile Thread parkedDriver;
    /** When the earliest bucket not yet expired is due, as of the driver's last step; MAX_VALUE if none. */
    private volatile long nextDueMs = Long.MAX_VALUE;
    /** The first failure to place a task in this turn, rethrown once the turn is consistent (E9). */
    private Throwable placeFailure;
    /** Tasks the driver expired and has not subtracted from size yet (E1). */
    private long uncounted;

    TimerEngine(String name, TimerGeometry geometry, Clock clock, Dispatcher dispatcher, boolean batchDue) {
        this.name = name;
        this.clock = clock;
        this.dispatcher = dispatcher;
        this.due = new DueTasks(dispatcher, batchDue);
        this.originNanos = clock.nanoTime();
        this.wheel = new TimingWheel(geometry.tickMs(), geometry.wheelSize(), 0L, queue);
    }

    String name() {
        return name;
    }

    int size() {
        long n = size.sum();
        return n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    boolean isClosed() {
        return closed;
    }

    long nowNanos() {
        return clock.nanoTime() - originNanos; // (E3)
    }

    // ---- any thread ----

    /** Schedules {@code task} at now + its delay, or dispatches it at once if that is not in the future. */
    void schedule(TimerTask task) {
        if (closed) {
            throw new IllegalStateException("timer '" + name + "' is closed");
        }
        if (!task.bindTo(this)) {
            throw new IllegalStateException("task " + task + " belongs to timer '" + task.owner().name
                    + "', cannot add it to timer '" + name + "'");
        }
        long now = nowNanos();
        long delayMs = task.delayMs();
        if (delayMs <= 0) {
            task.deadlineMs = now / NANOS_PER_MS;
            int previous = task.moveTo(TimerTask.EXPIRED);
            afterTransition(task, previous, TimerTask.EXPIRED);
            dispatcher.dispatch(task);
            return;
        }
        long deadlineMs = ceilMs(now) + Math.min(delayMs, Timer.MAX_DELAY_MS); // (E3), (E4)
        task.deadlineMs = deadlineMs; // written before the CAS that publishes it
        int previous = task.moveTo(TimerTask.SCHEDULED);
        afterTransition(task, previous, TimerTask.SCHEDULED);
        if (deadlineMs <= wakeAtMs) { // (E5)
            LockSupport.unpark(parkedDriver);
        }
        if (closed) { // raced with close(): it may have missed this task
            if (task.cancelOnClose()) {
                size.decrement();
            }
            throw new IllegalStateException("timer '" + name + "' is closed");
        }
    }

    private void afterTransition(TimerTask task, int previous, int lifecycle) {
        boolean wasScheduled = (previous & TimerTask.LIFECYCLE) == TimerTask.SCHEDULED;
        if (lifecycle == TimerTask.SCHEDULED && !wasScheduled) {
            size.increment(); // (E1)
        } else if (lifecycle != TimerTask.SCHEDULED && wasScheduled) {
            size.decrement(); // (E1)
        }
        if ((previous & TimerTask.MUST_PUSH) != 0) {
            // the move set IN_INBOX, so this thread pushes; fresh unless the task may be linked (E7)
            push(task, lifecycle == TimerTask.SCHEDULED && !wasScheduled);
        }
    }

    /** Called by {@link TimerTask#cancel()} after its CAS won. */
    void onCancelled(TimerTask task, boolean mustPush) {
        size.decrement(); // (E1)
        if (mustPush) {
            push(task, false);
        }
    }

    private void push(TimerTask task, boolean fresh) {
        if (inbox.push(task, fresh)) { // (E7)
            helpDrain();
        }
    }

    /**
     * The inbox has grown by a batch: wake a parked driver to drain it, or drain it here if no
     * thread is driving (E7). Keeps cancelled tasks from staying reachable until the next expiry.
     */
    private void helpDrain() {
        if (wakeAtMs != ACTIVE) {
            LockSupport.unpark(parkedDriver);
        } else if (driverLock.isHeldByCurrentThread()) {
            return; // (E7): a task running on the driving thread, maybe mid-flush; the driver drains next
        } else if (!closed && driverLock.tryLock()) {
            try {
                if (!closed) {
                    drainInbox();
                    placeFailure = null; // (E9): the tasks are back on the inbox; the driver meets it again
                }
            } finally {
                try {
                    flushDue(); // (E1), (E8)
                } finally {
                    driverLock.unlock();
                }
            }
        }
    }

    // ---- the driver ----

    /**
     * Drives the wheel until at least one bucket was processed, or until {@code timeoutNanos} of
     * real time have passed (E10), parking while nothing is due. Returns true iff a bucket was
     * processed; false at once when called from a task running on the driving thread.
     */
    boolean advance(long timeoutNanos) throws InterruptedException {
        if (driverLock.isHeldByCurrentThread()) {
            return false; // called from a task running on the driving thread: the outer call carries on
        }
        if (closed) {
            throw new IllegalStateException("timer '" + name + "' is closed");
        }
        driverLock.lockInterruptibly();
        if (drove.get() == null) {
            drove.set(Boolean.TRUE);
        }
        try {
            long startNanos = System.nanoTime(); // (E10)
            for (;;) {
                if (closed) {
                    return false;
                }
                if (expireDue()) {
                    cascadeAhead(true); // what the schedule says is behind (A2)
                    return true;
                }
                if (cascadeAhead(false)) {
                    continue; // one bounded step; due work first
                }
                long remainingNanos = timeoutNanos - (System.nanoTime() - startNanos);
                if (remainingNanos <= 0) {
                    return false;
                }
                parkDriver(Math.min(remainingNanos, nanosUntilNextWork()));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while advancing timer '" + name + "'");
                }
            }
        } finally {
            driverLock.unlock();
        }
    }

    /**
     * Runs what is due now, without waiting. Returns true iff at least one bucket was processed;
     * false at once when called from a task running on the driving thread.
     */
    boolean runDue() {
        if (driverLock.isHeldByCurrentThread()) {
            return false;
        }
        driverLock.lock();
        try {
            return !closed && expireDue();
        } finally {
            driverLock.unlock();
        }
    }

    /**
     * Applies the inbox, then expires every bucket that is due, in deadline order, handing due
     * tasks to the dispatcher. Returns true iff at least one bucket was processed.
     */
    private boolean expireDue() {
        boolean processed = false;
        try {
            for (;;) {
                if (closed) {
                    cancelAll(); // (E6)
                    return processed;
                }
                drainInbox();
                rethrowPlaceFailure(); // (E9)
                long nowMs = nowNanos() / NANOS_PER_MS;
                TimerTaskList bucket = queue.peek();
                publishNextDue(bucket);
                if (bucket == null || bucket.expirationMs() > nowMs) {
                    wheel.advanceClock(nowMs);
                    return processed;
                }
                queue.poll();
                processed = true;
                wheel.advanceClock(bucket.expirationMs());
                bucket.flush(reinsert);
                flushDue(); // (E1), (E8): one bucket per batch
                rethrowPlaceFailure(); // (E9)
            }
        } finally {
            flushDue(); // (E1), (E8)
        }
    }

    private void drainInbox() {
        for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
            TimerTask task = inbox.take(stripe);
            while (task != null) {
                TimerTask current = task;
                task = current.inboxNext;
                current.inboxNext = null;
                int state = current.leaveInbox(); // (T2): clear the bit, then read the state
                if (current.slot != 0) {
                    wheel.unlink(current);
                }
                if (state == TimerTask.SCHEDULED) {
                    placeOrHandBack(current);
                }
            }
        }
    }

    /** Re-adds a task from a flushed bucket, unless a pending change (on the inbox) owns it now. */
    private void reinsert(TimerTask task) {
        if (task.state() == TimerTask.SCHEDULED) { // (T3): not on the inbox
            placeOrHandBack(task);
        }
    }

    /** Places {@code task}; if that fails, puts it back on the inbox and keeps the failure (E9). */
    private void placeOrHandBack(TimerTask task) {
        try {
            place(task);
        } catch (Throwable failure) {
            if (task.rejoinInbox()) { // (T2): set the bit here, so push it here
                inbox.push(task, false);
            }
            if (placeFailure == null) {
                placeFailure = failure;
            }
        }
    }

    /** Counts the expiries of this batch out of size, then hands the batch over (E1, E8). */
    private void flushDue() {
        if (uncounted != 0) {
            size.add(-uncounted);
            uncounted = 0;
        }
        due.flush();
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

    private void place(TimerTask task) {
        if (closed) { // (E6)
            if (task.cancelOnClose()) {
                size.decrement();
            }
            return;
        }
        if (!wheel.add(task, task.deadlineMs) && task.expire()) {
            if (due.batching()) {
                uncounted++; // (E1)
            } else {
                size.decrement(); // (E1): it runs at once, maybe reading size
            }
            due.add(task); // (E8)
        }
    }

    /**
     * One bounded step of cascading ahead: re-adds the tasks of coarser buckets due soon that are
     * behind schedule ({@code paced}, after a turn that expired something), or up to EARLY_BATCH
     * of them (for a driver that found nothing due). Returns true iff it moved a task; the caller
     * then expires what became due before the next step.
     */
    private boolean cascadeAhead(boolean paced) {
        try {
            boolean worked = !closed
                    && EarlyCascade.step(wheel, paced ? PACED_BATCH : EARLY_BATCH, paced, reinsert) > 0;
            rethrowPlaceFailure(); // (E9)
            return worked;
        } finally {
            flushDue(); // (E1), (E8)
        }
    }

    /** One step of cascading ahead under the driver lock, paced or not (tests). */
    boolean cascadeAheadOnce(boolean paced) {
        driverLock.lock();
        try {
            return cascadeAhead(paced);
        } finally {
            driverLock.unlock();
        }
    }

    /** True iff {@code thread} waits for the driver lock (tests). */
    boolean isWaitingToDrive(Thread thread) {
        return driverLock.hasQueuedThread(thread);
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
        long dueNanos = TimingWheel.saturatedMultiply(nextMs, NANOS_PER_MS);
        return dueNanos == Long.MAX_VALUE ? Long.MAX_VALUE : dueNanos - nowNanos();
    }

    private void publishNextDue(TimerTaskList bucket) {
        long dueMs = bucket == null ? Long.MAX_VALUE : bucket.expirationMs();
        if (nextDueMs != dueMs) { // written only when it changes: adds may read it (BackPressure)
            nextDueMs = dueMs;
        }
    }

    /**
     * How far behind its deadlines the driver is at {@code nowMs}: 0 unless the earliest bucket it
     * had not expired at its last step (a bucket queued since may be earlier) is due.
     */
    long lagMs(long nowMs) {
        return Math.max(0L, nowMs - nextDueMs);
    }

    long nowMs() {
        return nowNanos() / NANOS_PER_MS;
    }

    /** True iff the calling thread drives this engine now (a task running on the driving thread). */
    boolean isDrivingThread() {
        return driverLock.isHeldByCurrentThread();
    }

    /**
     * True iff the calling thread drives this engine now or has driven it: a reaper between two
     * advances, whose own work comes before the next one, whichever other threads advanced meanwhile.
     */
    boolean isDriverThread() {
        return driverLock.isHeldByCurrentThread() || drove.get() != null;
    }

    /** Parks the driver for up to {@code nanos}, unless work arrived or the engine closed (E5). */
    private void parkDriver(long nanos) {
        parkedDriver = Thread.currentThread();
        long wakeNanos = nowNanos() + nanos;
        wakeAtMs = wakeNanos < 0 ? Long.MAX_VALUE : wakeNanos / NANOS_PER_MS;
        if (inbox.isEmpty() && !closed) {
            LockSupport.parkNanos(this, nanos);
        }
        wakeAtMs = ACTIVE;
    }

    /** Marks the engine closed and wakes a parked driver; does not wait. */
    private void markClosed() {
        closed = true;
        LockSupport.unpark(parkedDriver);
    }

    /**
     * Closes the engine: marks it closed and, unless called from a task on the driving thread
     * (which leaves the sweep to expireDue), cancels every scheduled task (E6).
     */
    void close() {
        markClosed();
        if (driverLock.isHeldByCurrentThread()) {
            return; // (E6)
        }
        driverLock.lock();
        try {
            cancelAll();
        } finally {
            driverLock.unlock();
        }
    }

    /** Cancels every scheduled task; they never run. Returns how many were cancelled. */
    int cancelAll() {
        assert driverLock.isHeldByCurrentThread() && closed;
        int[] cancelled = {0};
        Consumer<TimerTask> cancel = task -> {
            if (task.cancelOnClose()) {
                size.decrement();
                cancelled[0]++;
            }
        };
        for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
            TimerTask task = inbox.take(stripe);
            while (task != null) {
                TimerTask next = task.inboxNext;
                task.inboxNext = null;
                task.leaveInbox();
                if (task.slot != 0) {
                    wheel.unlink(task);
                }
                cancel.accept(task);
                task = next;
            }
        }
        wheel.forEachBucket(bucket -> bucket.flush(cancel));
        queue.clear();
        return cancelled[0];
    }

    /**
     * Checks the wheel's invariants and E1-E2; tests call it in quiescence, with no
     * concurrent add or cancel. Returns the number of tasks linked in the wheel.
     */
    long checkInvariants() {
        driverLock.lock();
        try {
            long linked = wheel.checkInvariants();
            long[] scheduled = {0};
            wheel.forEachBucket(b -> b.forEach(t -> {
                if (t.state() == TimerTask.SCHEDULED) {
                    scheduled[0]++;
                } else if ((t.state() & TimerTask.IN_INBOX) == 0) {
                    throw new IllegalStateException("(T3) linked task neither scheduled nor on the inbox: " + t);
                }
            }));
            for (int stripe = 0; stripe < inbox.stripes(); stripe++) {
                for (TimerTask t = inbox.peek(stripe); t != null; t = t.inboxNext) {
                    if ((t.state() & TimerTask.IN_INBOX) == 0) {
                        throw new IllegalStateException("(T2) task on the inbox without its bit: " + t);
                    }
                    if ((t.state() & TimerTask.LIFECYCLE) == TimerTask.SCHEDULED) {
                        scheduled[0]++;
                    }
                }
            }
            for (TimerTaskList b : queue) {
                if (b.expirationMs() <= wheel.currentTimeMs() && inbox.isEmpty()) {
                    throw new IllegalStateException("queued bucket already due: " + b);
                }
            }
            if (scheduled[0] != size.sum()) {
                throw new IllegalStateException("(E1/E2) size " + size.sum() + " but " + scheduled[0]
                        + " scheduled tasks are linked or on the inbox");
            }
            return linked;
        } finally {
            driverLock.unlock();
        }
    }

    /** The finest wheel (tests). */
    TimingWheel wheel() {
        return wheel;
    }

    private static long ceilMs(long nanos) {
        long ms = nanos / NANOS_PER_MS;
        return ms * NANOS_PER_MS == nanos ? ms : ms + 1;
    }
}
