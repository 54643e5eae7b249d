package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How an engine closes: it marks itself closed, settles every submitted operation on its lists by
 * the close policy, waits until the callbacks of what it settled, and of the expiries in flight on
 * other threads, have run (as {@link CloseOnce} allows), then closes what the engine holds besides
 * its operations. One per engine; thread-safe; a close may come from any thread, a callback of
 * the engine's own included.
 */
final class Closing {

    /*
     * Implementation notes.
     *
     * (N3) The mark comes first, then the sweep of every list. A submission that links after the
     *      sweep read its list sees the mark before its second try and settles itself as close
     *      would.
     * (N4) close returns once every operation the sweep found settled has finished (O5) and no
     *      expiry of this engine is in flight on another thread, when its thread may wait
     *      (CloseOnce), at most CloseOnce.WAIT_NANOS. It never waits for work on its own stack.
     * (N5) Only the first close does the work; another follows CloseOnce. A first close that
     *      stopped part way (a StackOverflowError from the caller's own deep stack) leaves `swept`
     *      null, and the next close sweeps again: settles are idempotent. A later close that may
     *      wait also waits as N4 for what the sweep found: the first may have been one that waits
     *      for nothing (from a callback).
     */

    private final Owner engine;
    private final WatcherList[] lists;
    private final int outcome;
    /** What the engine does before the sweep: leave its runtime, and close it if it is its own. */
    private final Runnable beforeSweep;
    /** What the engine closes after the sweep: its facade's resources and its meters. */
    private final Runnable afterSweep;
    private final CloseOnce once;
    /** Held by the mark and by whatever must not happen after it (a metrics binding). */
    private final ReentrantLock lock = new ReentrantLock();
    /** Expiries of the engine's operations running now (N4). */
    private final AtomicInteger expiring = new AtomicInteger();
    /**
     * Of what a close's sweep found, once that close did all its work, those a later close waits
     * for (awaitFinished); null until then, and another close sweeps again (N5).
     */
    private volatile List<Operation> swept;

    Closing(Owner engine, WatcherList[] lists, int outcome, Runnable beforeSweep, Runnable afterSweep) {
        this.engine = engine;
        this.lists = lists;
        this.outcome = outcome;
        this.beforeSweep = beforeSweep;
        this.afterSweep = afterSweep;
        this.once = new CloseOnce("purgatory '" + engine.name() + "'");
    }

    /** True once a close began. */
    boolean isMarked() {
        return once.isBegun();
    }

    /**
     * Runs {@code change} unless a close began, holding off the mark meanwhile.
     *
     * @throws IllegalStateException if a close began
     */
    void unlessClosed(Runnable change) {
        lock.lock();
        try {
            if (once.isBegun()) {
                throw new IllegalStateException("purgatory '" + engine.name() + "' is closed");
            }
            change.run();
        } finally {
            lock.unlock();
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

    /**
     * Settles {@code op} by the close policy: one the sweep may have missed, or one that can never
     * expire (its timer is closed). A settle by the close (O9) only once a close began.
     */
    void settleAsClose(Operation op) {
        if (once.isBegun()) {
            OperationState.settleForClose(op, outcome);
        } else {
            OperationState.settle(op, outcome);
        }
    }

    void expiryBegins() {
        expiring.incrementAndGet();
    }

    void expiryEnds() {
        expiring.decrementAndGet();
    }

    /** Closes the engine (N3, N4, N5); idempotent. */
    void close() {
        boolean first;
        lock.lock();
        try {
            first = once.mark();
        } finally {
            lock.unlock();
        }
        if (!first) {
            once.awaitFirst();
        }
        if (first) {
            try {
                beforeSweep.run();
                sweepAndAwait();
            } finally {
                once.done();
            }
        } else {
            List<Operation> found = swept;
            if (found == null) { // the first close stopped part way (N5)
                sweepAndAwait();
            } else {
                swept = awaitFinished(found); // (N5): the first may have waited for nothing
            }
        }
    }

    private void sweepAndAwait() {
        List<Operation> left = awaitFinished(sweep());
        afterSweep.run();
        swept = left; // last: a close cut short before it leaves `swept` null, and the next does the work (N5)
    }

    /**
     * Waits as N4 for {@code found} and the expiries in flight, if this thread may; returns those
     * of them a later close waits for (N5): none once it saw them all finished, else all of them.
     */
    private List<Operation> awaitFinished(List<Operation> found) {
        InProgress progress = InProgress.current();
        int own = progress.expiriesOf(engine);
        if (once.await(() -> noneBeingFinished(found, progress) && expiring.get() <= own,
                CloseOnce.startNanos())) { // (N4)
            return List.of();
        }
        return found;
    }

    /**
     * Settles every submitted operation on the lists (N3); returns those of them a try's holder
     * had claimed, the only ones a close may have to wait for (O5): the others are finished (or,
     * settled, can no longer be claimed), so a closed engine keeps no reference to them.
     */
    private List<Operation> sweep() {
        List<Operation> claimed = new ArrayList<>();
        for (WatcherList list : lists) {
            for (Operation op : list.operations()) {
                OperationState.settleNow(op, outcome);
                if ((op.state & OperationState.TRYING) != 0) {
                    claimed.add(op);
                }
            }
        }
        return claimed;
    }

    /** True iff no operation of {@code found} is being finished by a try's holder on another thread (O5). */
    private static boolean noneBeingFinished(List<Operation> found, InProgress progress) {
        for (Operation op : found) {
            if (OperationState.isBeingFinishedByAHolder(op.state) && !progress.holdsClaim(op)) {
                return false;
            }
        }
        return true;
    }
}
