package io.purgatory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an engine answers what it holds when it closes: it settles every submitted operation on its
 * lists by the close policy (Engine N3), then waits until the callbacks of those whose settle a
 * try's holder finishes, and of the expiries in flight on other threads, have run (N4).
 */
final class CloseSweep {

    /** The longest a close waits for callbacks running on other threads (N4). */
    static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final Logger LOG = LoggerFactory.getLogger(CloseSweep.class);
    private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private CloseSweep() {
    }

    /** Settles every submitted operation on {@code lists} with {@code outcome} (N2, N3); returns those it found. */
    static List<DelayedOperation> sweep(WatcherList[] lists, Outcome outcome) {
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
     * {@code expiring} (the owner's expiries in flight) counts none but this thread's own, at most
     * CLOSE_WAIT_NANOS (N4); the engine's close lock is held, and {@code owner} is the engine.
     */
    static void awaitFinished(List<DelayedOperation> swept, AtomicInteger expiring, Owner owner) {
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        InProgress progress = InProgress.current();
        for (DelayedOperation op : swept) {
            while (OperationState.isBeingFinishedByAHolder(op.state) && !progress.holdsClaim(op)) {
                if (!pause(deadline, owner)) {
                    return;
                }
            }
        }
        int own = progress.expiriesOf(owner);
        while (expiring.get() > own) {
            if (!pause(deadline, owner)) {
                return;
            }
        }
    }

    /** Waits, at most CLOSE_WAIT_NANOS, for another close to count {@code closedFully} down (N5). */
    static void await(CountDownLatch closedFully, Owner owner) {
        try {
            if (!closedFully.await(CLOSE_WAIT_NANOS, TimeUnit.NANOSECONDS)) {
                LOG.warn("Purgatory '{}': close() waited {} s for a close on another thread and returns",
                        owner.name(), TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean pause(long deadline, Owner owner) {
        if (System.nanoTime() - deadline >= 0) {
            LOG.warn("Purgatory '{}': close() waited {} s for callbacks running on other threads and returns;"
                    + " they finish there", owner.name(), TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS));
            return false;
        }
        LockSupport.parkNanos(owner, PAUSE_NANOS);
        return true;
    }
}
