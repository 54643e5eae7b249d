package io.purgatory.timer;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The machinery shared by {@link SystemTimer} and {@link ManualTimer}: a hierarchical timing
 * wheel owned by one driver thread at a time, fed by a lock-free inbox. This class is the side
 * every thread sees (schedule, cancel, the inbox, wake-ups, close); {@link DriverState} is what
 * only the thread holding the driver lock touches.
 *
 * <p>{@link #schedule} and {@link TimerEntry#cancelSchedule} are safe from any thread and
 * lock-free: one CAS on the entry's state and, when the wheel must change, one CAS to push the
 * entry on the inbox. Everything else runs under the driver lock, taken by {@link #advance} and
 * {@link #runDue}: the driver drains the inbox, moving entries in or out of buckets, then expires
 * due buckets in deadline order.
 */
final class TimerEngine {

    /*
     * Implementation notes. Netty's ownership (only the driver touches buckets; others hand it
     * entries through an inbox, Inbox) with Kafka's hierarchy and bucket queue.
     *
     * (E1) size counts this engine's SCHEDULED entries and the driver's expiries not yet handed
     *      over, which leave it just before their hand-off, once per batch (DueTasks B4): an
     *      entry handed over, running or run, is never counted. An add counts its entry after
     *      pushing it, so whoever sees it counted (ManualTimer.awaitScheduled) finds it on the
     *      inbox; the sum may dip below 0 meanwhile, which size() reads as 0.
     * (E2) Every SCHEDULED entry is linked in the wheel or on the inbox, or both while a change
     *      of it is pending (checkInvariants, in quiescence).
     * (E3) Times are relative to the origin and stay below 2^62 ms: a delay is capped at
     *      MAX_DELAY_MS; ManualTimer.advanceClock saturates the clock.
     * (E4) Never early: a deadline is ceil(now in ms) + delay; an entry runs once floor(now) >= it.
     *      Now is read by the schedule, or given by its caller as its own reading of this clock
     *      (a purgatory's watch time): the delay then counts from that reading.
     * (E5) No lost wake-up: a parking driver publishes wakeAtMs, then re-reads the inbox; a pusher
     *      pushes, then reads wakeAtMs. One of the two sees the other.
     * (E6) close marks, then sweeps under driverLock; from the mark on the driver cancels instead
     *      of placing. A close from an entry on the driving thread only marks; the driver sweeps.
     * (E7) A push that crosses its stripe's weight (Inbox I2) wakes a parked driver or, with none
     *      driving, drains the inbox itself under tryLock; never from an entry on the driving
     *      thread, which may be walking a detached bucket. That drain places entries and unlinks
     *      cancelled ones, and never expires: an entry already due goes back on the inbox before
     *      the lock is released, where the driver's next step drains it (a driver does not park
     *      on a non-empty inbox, E5). So no task runs on, nor is handed over by, a pushing thread.
     * (E10) advance bounds its wait in real time, deadlines stay on the engine's clock: a driver
     *      on a clock that does not move by itself still returns.
     * (E11) Work asked of the driver (askDriver: a read of its state) runs once, under the driver
     *      lock: by the driver at the top of a step, or by the asking thread when it gets the lock
     *      (no one drives). The driver holds the lock while parked, so an asker wakes it as a pusher
     *      does (E5, with `asked` for the inbox). An asker that waited its bound withdraws the work
     *      if no thread took it off `asked` (else it waits for its answer: it never runs unasked);
     *      one on the driving thread asks nothing (an entry mid-turn may be walking a detached bucket).
     */

    static final long NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long ACTIVE = Long.MIN_VALUE;
    /** How often an asker looks whether its work ran, or whether it can take the driver lock (E11). */
    private static final long ASK_POLL_NANOS = 20_000;

    /** Held by whichever thread drives the wheel. */
    private final ReentrantLock driverLock = new ReentrantLock();
    /** Set on each thread that has driven this engine (advanced it). */
    private final ThreadLocal<Boolean> drove = new ThreadLocal<>();

    private final String name;
    private final Clock clock;
    private final long originNanos;
    final LongAdder size = new LongAdder();
    final Inbox inbox = new Inbox();
    private final DriverState driver;
    private final Dispatcher dispatcher;
    private volatile boolean closed;
    private volatile long wakeAtMs = ACTIVE;
    private volatile Thread parkedDriver;
    /** When the earliest bucket not yet expired is due, as of the driver's last step; MAX_VALUE if none. */
    private volatile long nextDueMs = Long.MAX_VALUE;
    /** Work asked of the driver by other threads, each run once (E11). */
    private final Queue<FutureTask<?>> asked = new ConcurrentLinkedQueue<>();

    TimerEngine(String name, TimerSettings settings, Clock clock, Dispatcher dispatcher, boolean batchDue) {
        this.name = name;
        this.clock = clock;
        this.dispatcher = dispatcher;
        this.originNanos = clock.nanoTime();
        this.driver = new DriverState(this, settings, dispatcher, batchDue);
    }

    String name() {
        return name;
    }

    int size() {
        long n = size.sum(); // below 0 for a moment when a pushed entry is run or cancelled before it is counted (E1)
        return n < 0 ? 0 : n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    boolean isClosed() {
        return closed;
    }

    long nowNanos() {
        return clock.nanoTime() - originNanos; // (E3)
    }

    long nowMs() {
        return nowNanos() / NANOS_PER_MS;
    }

    // ---- any thread ----

    /** Schedules {@code entry} at now + its delay, or dispatches it at once if that is not in the future. */
    void schedule(TimerEntry entry) {
        schedule(entry, null, 0L); // reads the clock after the checks
    }

    /**
     * As {@link #schedule(TimerEntry)}, with {@code readNanos} as now if {@code readOn} is this
     * engine's clock and {@code readNanos} was read from it (a caller's one reading, E4): else it
     * reads the clock itself.
     */
    void schedule(TimerEntry entry, Clock readOn, long readNanos) {
        if (closed) {
            throw new IllegalStateException("timer '" + name + "' is closed");
        }
        if (entry instanceof TimerTask task && !task.bindTo(this)) { // a library's entries are its own
            throw new IllegalStateException("task " + entry + " belongs to timer '" + task.owner().name
                    + "', cannot add it to timer '" + name + "'");
        }
        long now = (readOn == clock ? readNanos : clock.nanoTime()) - originNanos; // (E3)
        long delayMs = entry.delayMs();
        if (delayMs <= 0) {
            entry.deadlineMs = now / NANOS_PER_MS;
            int previous = entry.moveTo(TimerEntry.EXPIRED);
            afterTransition(entry, previous, TimerEntry.EXPIRED);
            dispatcher.dispatch(entry);
            return;
        }
        long deadlineMs = ceilMs(now) + Math.min(delayMs, Timer.MAX_DELAY_MS); // (E3), (E4)
        entry.deadlineMs = deadlineMs; // written before the CAS that publishes it
        int previous = entry.moveTo(TimerEntry.SCHEDULED);
        afterTransition(entry, previous, TimerEntry.SCHEDULED);
        if (deadlineMs <= wakeAtMs) { // (E5)
            LockSupport.unpark(parkedDriver);
        }
        if (closed) { // raced with close(): it may have missed this entry
            if (entry.cancelOnClose()) {
                size.decrement();
            }
            throw new IllegalStateException("timer '" + name + "' is closed");
        }
    }

    private void afterTransition(TimerEntry entry, int previous, int lifecycle) {
        boolean wasScheduled = (previous & TimerEntry.LIFECYCLE) == TimerEntry.SCHEDULED;
        if ((previous & TimerEntry.MUST_PUSH) != 0) {
            // the move set IN_INBOX, so this thread pushes; fresh unless the entry may be linked (E7)
            push(entry, lifecycle == TimerEntry.SCHEDULED && !wasScheduled);
        }
        if (lifecycle == TimerEntry.SCHEDULED && !wasScheduled) {
            size.increment(); // (E1): after the push, so a counted entry is one the driver can reach
        } else if (lifecycle != TimerEntry.SCHEDULED && wasScheduled) {
            size.decrement(); // (E1)
        }
    }

    /** Called by {@link TimerEntry#cancelSchedule} after its CAS won. */
    void onCancelled(TimerEntry entry, boolean mustPush) {
        size.decrement(); // (E1)
        if (mustPush) {
            push(entry, false);
        }
    }

    private void push(TimerEntry entry, boolean fresh) {
        if (inbox.push(entry, fresh)) { // (E7)
            helpDrain();
        }
    }

    /**
     * The inbox has grown by a batch: wake a parked driver to drain it, or drain it here if no
     * thread is driving (E7). Keeps cancelled entries from staying reachable until the next expiry;
     * expires nothing, so no task runs on this thread.
     */
    private void helpDrain() {
        if (wakeAtMs != ACTIVE) {
            LockSupport.unpark(parkedDriver);
        } else if (driverLock.isHeldByCurrentThread()) {
            return; // (E7): an entry running on the driving thread, maybe mid-flush; the driver drains next
        } else if (!closed && driverLock.tryLock()) {
            try {
                driver.helpDrain();
            } finally {
                driverLock.unlock();
            }
        }
    }

    /**
     * Runs {@code work} on the driver's state under the driver lock (E11) and returns what it
     * returned: at once if no thread drives, else at the driver's next step, waking it if it is
     * parked. Returns null, having run nothing, on the driving thread, once closed, or if
     * {@code work} did not start within {@code maxWaitNanos}; rethrows what {@code work} threw.
     */
    <T> T askDriver(Function<DriverState, T> work, long maxWaitNanos) {
        if (closed || driverLock.isHeldByCurrentThread()) {
            return null;
        }
        FutureTask<T> task = new FutureTask<>(() -> work.apply(driver));
        asked.add(task);
        if (wakeAtMs != ACTIVE) { // (E5), (E11)
            LockSupport.unpark(parkedDriver);
        }
        long startNanos = System.nanoTime();
        boolean interrupted = false;
        try {
            while (!task.isDone()) {
                if (driverLock.tryLock()) {
                    try {
                        runAsked();
                    } finally {
                        driverLock.unlock();
                    }
                } else if (System.nanoTime() - startNanos > maxWaitNanos && asked.remove(task)) {
                    return null; // no one took it, so no one runs it; once taken, it is waited for
                } else {
                    LockSupport.parkNanos(this, ASK_POLL_NANOS); // polled: no wake-up to lose
                    interrupted |= Thread.interrupted();
                }
            }
            return task.get();
        } catch (InterruptedException notRun) { // get() of a done task: never interrupted
            throw new IllegalStateException(notRun);
        } catch (ExecutionException failed) {
            if (failed.getCause() instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failed.getCause(); // the work throws nothing checked
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs the work asked of the driver so far (E11), under the driver lock (once closed too: it walks nothing). */
    private void runAsked() {
        for (FutureTask<?> task; (task = asked.poll()) != null; ) {
            task.run(); // keeps what it throws for its asker
        }
    }

    // ---- the driver ----

    /**
     * Drives the wheel until at least one bucket was processed, or until {@code timeoutNanos} of
     * real time have passed (E10), parking while nothing is due. Returns true iff a bucket was
     * processed; false at once when called from an entry running on the driving thread.
     */
    boolean advance(long timeoutNanos) throws InterruptedException {
        if (driverLock.isHeldByCurrentThread()) {
            return false; // called from an entry running on the driving thread: the outer call carries on
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
                runAsked(); // (E11)
                if (closed) {
                    return false;
                }
                if (driver.expireDue()) {
                    driver.cascadeAhead(true); // what the schedule says is behind (A2)
                    return true;
                }
                if (driver.cascadeAhead(false)) {
                    continue; // one bounded step; due work first
                }
                long remainingNanos = timeoutNanos - (System.nanoTime() - startNanos);
                if (remainingNanos <= 0) {
                    return false;
                }
                parkDriver(Math.min(remainingNanos, driver.nanosUntilNextWork()));
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
     * false at once when called from an entry running on the driving thread.
     */
    boolean runDue() {
        if (driverLock.isHeldByCurrentThread()) {
            return false;
        }
        driverLock.lock();
        try {
            return !closed && driver.expireDue();
        } finally {
            driverLock.unlock();
        }
    }

    /** The finest wheel (tests). */
    TimingWheel wheel() {
        return driver.wheel();
    }

    /** One step of cascading ahead under the driver lock, paced or not (tests). */
    boolean cascadeAheadOnce(boolean paced) {
        return underDriverLock(d -> d.cascadeAhead(paced));
    }

    /** Nanoseconds until the next work of the driver (tests). */
    long nanosUntilNextWork() {
        return underDriverLock(DriverState::nanosUntilNextWork);
    }

    /** Runs {@code step} under the driver lock (tests). */
    <T> T underDriverLock(Function<DriverState, T> step) {
        driverLock.lock();
        try {
            return step.apply(driver);
        } finally {
            driverLock.unlock();
        }
    }

    /** True iff {@code thread} waits for the driver lock (tests). */
    boolean isWaitingToDrive(Thread thread) {
        return driverLock.hasQueuedThread(thread);
    }

    /** Publishes when the earliest bucket not yet expired is due (the driver's step). */
    void publishNextDue(long dueMs) {
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

    /** True iff the calling thread drives this engine now (an entry running on the driving thread). */
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
        if (inbox.isEmpty() && asked.isEmpty() && !closed) { // (E5), (E11)
            LockSupport.parkNanos(this, nanos);
        }
        wakeAtMs = ACTIVE;
    }

    /**
     * Closes the engine: marks it closed, wakes a parked driver and, unless called from an entry on
     * the driving thread (which leaves the sweep to the driver), cancels every scheduled entry (E6).
     */
    void close() {
        closed = true;
        LockSupport.unpark(parkedDriver);
        if (driverLock.isHeldByCurrentThread()) {
            return; // (E6)
        }
        driverLock.lock();
        try {
            driver.cancelAll();
        } finally {
            driverLock.unlock();
        }
    }

    /** Checks the wheel's invariants and E1-E2 in quiescence; returns the number of entries linked in the wheel. */
    long checkInvariants() {
        return underDriverLock(DriverState::checkInvariants);
    }

    private static long ceilMs(long nanos) {
        long ms = nanos / NANOS_PER_MS;
        return ms * NANOS_PER_MS == nanos ? ms : ms + 1;
    }
}
