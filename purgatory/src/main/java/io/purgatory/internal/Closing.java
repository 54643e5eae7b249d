package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

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
     * (N4) close returns once every operation the sweeps found settled has finished (O5) and no
     *      expiry of this engine is in flight on another thread, when its thread may wait
     *      (CloseOnce), at most CloseOnce.WAIT_NANOS. It never waits for work on its own stack.
     * (N5) Every close follows CloseOnce: a later close does the whole work again (settles are
     *      idempotent) unless a close already did it all and saw everything finished. A close that
     *      stopped part way (a StackOverflowError from the caller's own deep stack) or could not
     *      wait (from a callback) is thus finished by the next. What a sweep found claimed stays in
     *      `swept` until a close saw it finished, so a later close also waits for what an earlier
     *      sweep settled; nothing else settled is kept.
     */

    private final Owner engine;
    private final WatcherList[] lists;
    private final int outcome;
    /** What the engine does before the sweep: leave its runtime, and close it if it is its own. */
    private final Runnable beforeSweep;
    /** What the engine closes after the sweep: its facade's resources and its meters. */
    private final Runnable afterSweep;
    private final CloseOnce once;
    /** Expiries of the engine's operations running now (N4). */
    private final AtomicInteger expiring = new AtomicInteger();
    /** What the sweeps found claimed by a try's holder, until a close saw it finished (N5); by identity. */
    private volatile Set<Operation> swept = Set.of();

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
        if (!once.unlessBegun(change)) {
            throw new IllegalStateException("purgatory '" + engine.name() + "' is closed");
        }
    }

    /** Runs {@code change} holding off the mark: a close begins before it or after it. */
    void withMarkHeld(Runnable change) {
        once.withMarkHeld(change);
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
        once.close(this::closeWhole);
    }

    /** A close's whole work (N3-N5); true iff it saw everything it waits for finished. */
    private boolean closeWhole() {
        beforeSweep.run();
        Set<Operation> found = Collections.newSetFromMap(new IdentityHashMap<>());
        found.addAll(swept);
        sweep(found);
        swept = found; // before the wait: a close cut short in it leaves them to the next (N5)
        InProgress progress = InProgress.current();
        int own = progress.expiriesOf(engine);
        boolean finished = once.await(() -> noneBeingFinished(found, progress) && expiring.get() <= own,
                "a callback"); // (N4)
        afterSweep.run();
        if (finished) {
            swept = Set.of(); // a closed engine keeps no reference to what it settled
        }
        return finished;
    }

    /**
     * Settles every submitted operation on the lists (N3); adds to {@code claimed} those of them a
     * try's holder had claimed, the only ones a close may have to wait for (O5): the others are
     * finished (or, settled, can no longer be claimed), so a closed engine keeps no reference to them.
     */
    private void sweep(Set<Operation> claimed) {
        for (WatcherList list : lists) {
            for (Operation op : list.operations()) {
                OperationState.settleNow(op, outcome);
                if ((op.state & OperationState.TRYING) != 0) {
                    claimed.add(op);
                }
            }
        }
    }

    /** True iff no operation of {@code found} is being finished by a try's holder on another thread (O5). */
    private static boolean noneBeingFinished(Set<Operation> found, InProgress progress) {
        for (Operation op : found) {
            if (OperationState.isBeingFinishedByAHolder(op.state) && !progress.holdsClaim(op)) {
                return false;
            }
        }
        return true;
    }
}
