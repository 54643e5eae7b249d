package io.purgatory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an engine closes: it marks itself closed, settles every submitted operation on its lists by
 * the close policy, waits until the callbacks of what it settled, and of the expiries in flight on
 * other threads, have run, then closes what the engine holds besides its operations. One per
 * engine; thread-safe; a close may come from any thread, a callback of the engine's own included.
 */
final class Closing {

    /*
     * Implementation notes.
     *
     * (N3) The mark comes first, then the sweep of every list. A submission that links after the
     *      sweep read its list sees the mark before its second try and settles itself as close
     *      would.
     * (N4) close returns once every operation the sweep found settled has finished (O5) and no
     *      expiry of this engine is in flight on another thread, or after CLOSE_WAIT_NANOS. It
     *      never waits for work on its own stack (InProgress): a close from a callback or a try
     *      would wait for itself.
     * (N5) Only the first close does the work, holding no lock while it joins the reaper; another
     *      waits for it (bounded), unless it may be what the first waits for (the driver, a
     *      thread in a try, a callback or an expiry). A close that stopped part way (a
     *      StackOverflowError from the caller's own deep stack) leaves `swept` clear, and the
     *      next close sweeps again: settles are idempotent.
     */

    /** The longest a close waits for callbacks running on other threads (N4). */
    static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final Logger LOG = LoggerFactory.getLogger(Closing.class);
    private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final Owner engine;
    private final WatcherList[] lists;
    private final Outcome outcome;
    private final PurgatoryRuntime runtime;
    /** What the engine does before the sweep: leave its runtime, and close it if it is its own. */
    private final Runnable beforeSweep;
    /** What the engine closes after the sweep: its facade's resources and its meters. */
    private final Runnable afterSweep;
    private final AtomicBoolean marked = new AtomicBoolean();
    /** Held by the mark and by whatever must not happen after it (a metrics binding). */
    private final ReentrantLock lock = new ReentrantLock();
    /** Expiries of the engine's operations running now (N4). */
    private final AtomicInteger expiring = new AtomicInteger();
    /** Counted down when the first close has done its work, or stopped part way (N5). */
    private final CountDownLatch closedFully = new CountDownLatch(1);
    /** Set once a close swept every list; until then another close sweeps again (N5). */
    private volatile boolean swept;

    /**
     * The close of {@code engine}, on {@code runtime}, whose {@code lists} it sweeps with
     * {@code outcome}, running {@code beforeSweep} before the sweep and {@code afterSweep} after it.
     */
    Closing(Owner engine, WatcherList[] lists, Outcome outcome, PurgatoryRuntime runtime, Runnable beforeSweep,
            Runnable afterSweep) {
        this.engine = engine;
        this.lists = lists;
        this.outcome = outcome;
        this.runtime = runtime;
        this.beforeSweep = beforeSweep;
        this.afterSweep = afterSweep;
    }

    /** True once a close began. */
    boolean isMarked() {
        return marked.get();
    }

    /**
     * Runs {@code change} unless a close began, holding off the mark meanwhile.
     *
     * @throws IllegalStateException if a close began
     */
    void unlessClosed(Runnable change) {
        lock.lock();
        try {
            if (marked.get()) {
                throw new IllegalStateException("purgatory '" + engine.name() + "' is closed");
            }
            change.run();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Settles {@code op} by the close policy: one the sweep may have missed, or one that can never
     * expire (its timer is closed). A settle by the close (O9) only once a close began: a timer
     * closed under an open purgatory is not its close.
     */
    void settleAsClose(DelayedOperation op) {
        if (marked.get()) {
            OperationState.settleForClose(op, outcome);
        } else {
            OperationState.settle(op, outcome);
        }
    }

    /** Runs {@code change} holding off the mark: a close begins before it or after it. */
    void withMarkHeld(Runnable change) {
        lock.lock();
        try {
            change.run();
        } finally {
            lock.unlock();
        }
    }

    void expiryBegins() {
        expiring.incrementAndGet();
    }

    void expiryEnds() {
        expiring.decrementAndGet();
    }

    /**
     * Closes the engine (N3, N4, N5); idempotent.
     *
     * @throws KeyReentryException if called from a key's method that a list is calling (K9)
     */
    void close() {
        for (WatcherList list : lists) {
            if (Thread.holdsLock(list) && list.isCallingAKeyOnThisThread()) {
                throw new KeyReentryException();
            }
        }
        boolean first;
        lock.lock();
        try {
            first = marked.compareAndSet(false, true);
        } finally {
            lock.unlock();
        }
        if (first) {
            try {
                beforeSweep.run();
                sweepAndAwait();
            } finally {
                closedFully.countDown();
            }
            return;
        }
        if (mayWaitForAnotherClose()) { // (N5)
            awaitOtherClose();
        }
        if (!swept) { // the first close stopped part way (N5)
            sweepAndAwait();
        }
    }

    private void sweepAndAwait() {
        awaitFinished(sweep());
        swept = true;
        afterSweep.run();
    }

    /** Settles every submitted operation on the lists (N2, N3); returns those it found. */
    private List<DelayedOperation> sweep() {
        List<DelayedOperation> found = new ArrayList<>();
        for (WatcherList list : lists) {
            for (DelayedOperation op : list.operations()) {
                found.add(op);
                OperationState.settleNow(op, outcome);
            }
        }
        return found;
    }

    /**
     * Waits until no swept operation is being finished by a try's holder on another thread, and
     * the engine's expiries in flight count none but this thread's own, at most CLOSE_WAIT_NANOS (N4).
     */
    private void awaitFinished(List<DelayedOperation> found) {
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        InProgress progress = InProgress.current();
        for (DelayedOperation op : found) {
            while (OperationState.isBeingFinishedByAHolder(op.state) && !progress.holdsClaim(op)) {
                if (!pause(deadline)) {
                    return;
                }
            }
        }
        int own = progress.expiriesOf(engine);
        while (expiring.get() > own) {
            if (!pause(deadline)) {
                return;
            }
        }
    }

    /**
     * Whether this thread may wait for a close running on another: not if the other may be waiting
     * for this thread (the runtime's driver, which an own runtime's close joins; a thread in a
     * try, a callback or an expiry of a purgatory).
     */
    private boolean mayWaitForAnotherClose() {
        InProgress progress = InProgress.current();
        return !runtime.isDriverThread() && !progress.holdsAnyClaim() && progress.expiriesOf(engine) == 0
                && !Callbacks.isRunning();
    }

    /** Waits, at most CLOSE_WAIT_NANOS, for the first close to count {@code closedFully} down (N5). */
    private void awaitOtherClose() {
        try {
            if (!closedFully.await(CLOSE_WAIT_NANOS, TimeUnit.NANOSECONDS)) {
                LOG.warn("Purgatory '{}': close() waited {} s for a close on another thread and returns",
                        engine.name(), TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean pause(long deadline) {
        if (System.nanoTime() - deadline >= 0) {
            LOG.warn("Purgatory '{}': close() waited {} s for callbacks running on other threads and returns;"
                    + " they finish there", engine.name(), TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS));
            return false;
        }
        LockSupport.parkNanos(engine, PAUSE_NANOS);
        return true;
    }
}
