package io.purgatory.internal;

import java.util.ArrayDeque;

/**
 * Runs the callbacks of settled operations, on the thread that finished the settle, in bounded
 * stack: a settle finished inside a callback on the same thread (an {@code onComplete} that
 * completes another operation, which completes the next...) is queued and run once the outermost
 * callback returns. Each callback goes through {@link UserCode}, which contains its failure.
 */
final class Callbacks {

    /*
     * Implementation notes.
     *
     * Kafka's purgatory queues nested completions in an action queue for the same reason; without
     * it a chain of completions recurses once per link and a default thread stack overflows near a
     * thousand links, wherever it happens to be.
     *
     * (Q1) Per thread, at most one run of callbacks is on the stack: `running` is set around it,
     *      and a run asked for meanwhile is queued (in order) and taken by the outermost run
     *      before it returns.
     * (Q2) onExpiration runs after onComplete even if onComplete threw: each callback is its own
     *      call into UserCode, which lets nothing escape (U1).
     * (Q3) A close's settles run their callbacks at once even inside a running callback (one level
     *      deeper, never more: the settles those callbacks make are queued as in Q1), so the
     *      close returns with its answers out.
     */

    private boolean running;
    /** The operations awaiting their callbacks, in the order their settles finished (Q1). */
    private final ArrayDeque<Operation> queue = new ArrayDeque<>();

    /**
     * Runs {@code op}'s callbacks for {@code outcome}: now if no callback runs on this thread, or
     * if {@code now} (Q3); else after the one running (Q1).
     */
    static void run(Operation op, int outcome, boolean now) {
        InProgress progress = InProgress.current();
        Callbacks callbacks = progress.callbacks;
        if (callbacks.running) {
            if (now) {
                invoke(op, outcome, progress);
            } else {
                callbacks.queue.add(op);
            }
            return;
        }
        callbacks.running = true;
        try {
            invoke(op, outcome, progress);
            for (Operation next = callbacks.queue.poll(); next != null; next = callbacks.queue.poll()) {
                invoke(next, OperationState.outcome(next), progress);
            }
        } finally {
            callbacks.running = false;
        }
    }

    private static void invoke(Operation op, int outcome, InProgress progress) {
        switch (outcome) {
            case OperationState.COMPLETED -> UserCode.call(op, UserCode.ON_COMPLETE, progress);
            case OperationState.EXPIRED -> { // (Q2)
                UserCode.call(op, UserCode.ON_COMPLETE, progress);
                UserCode.call(op, UserCode.ON_EXPIRATION, progress);
            }
            default -> UserCode.call(op, UserCode.ON_CANCEL, progress);
        }
    }
}
