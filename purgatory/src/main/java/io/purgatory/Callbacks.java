package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;

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
     *      before it returns. The queue grows by doubling; if it cannot grow, the run happens at
     *      once instead (deeper, but never lost).
     * (Q2) onExpiration runs after onComplete even if onComplete threw: each callback is its own
     *      call into UserCode, which lets nothing escape (U1).
     * (Q3) A close's settles run their callbacks at once even inside a running callback (one level
     *      deeper, never more: the settles those callbacks make are queued as in Q1), so the
     *      close returns with its answers out.
     */

    private static final ThreadLocal<Callbacks> CURRENT = ThreadLocal.withInitial(Callbacks::new);
    private static final int INITIAL_CAPACITY = 16;

    private boolean running;
    /** A ring of operations awaiting their callbacks (Q1). */
    private DelayedOperation[] queue = new DelayedOperation[INITIAL_CAPACITY];
    private int head;
    private int size;

    private Callbacks() {
    }

    /** Runs {@code op}'s callbacks for {@code outcome} now, or after the callback running on this thread (Q1). */
    static void run(DelayedOperation op, Outcome outcome) {
        Callbacks callbacks = CURRENT.get();
        if (callbacks.running && callbacks.offer(op)) {
            return;
        }
        boolean outermost = !callbacks.running;
        callbacks.running = true;
        try {
            invoke(op, outcome);
            if (outermost) {
                callbacks.drain();
            }
        } finally {
            if (outermost) {
                callbacks.running = false;
            }
        }
    }

    /** True iff callbacks are running on this thread. */
    static boolean isRunning() {
        return CURRENT.get().running;
    }

    /** Runs {@code op}'s callbacks for {@code outcome} before returning, inside a running callback too (Q3). */
    static void runNow(DelayedOperation op, Outcome outcome) {
        Callbacks callbacks = CURRENT.get();
        if (!callbacks.running) {
            run(op, outcome);
        } else {
            invoke(op, outcome);
        }
    }

    private void drain() {
        while (size > 0) {
            DelayedOperation op = queue[head];
            queue[head] = null;
            head = (head + 1) % queue.length;
            size--;
            invoke(op, op.outcome());
        }
        head = 0;
    }

    private boolean offer(DelayedOperation op) {
        try {
            if (size == queue.length) {
                grow();
            }
        } catch (OutOfMemoryError cannotGrow) {
            return false; // (Q1): run it at once instead
        }
        queue[(head + size) % queue.length] = op;
        size++;
        return true;
    }

    private void grow() {
        DelayedOperation[] bigger = new DelayedOperation[2 * queue.length];
        int firstPart = queue.length - head; // the ring is full: [head, end) then [0, head)
        System.arraycopy(queue, head, bigger, 0, firstPart);
        System.arraycopy(queue, 0, bigger, firstPart, head);
        head = 0;
        queue = bigger;
    }

    private static void invoke(DelayedOperation op, Outcome outcome) {
        switch (outcome) {
            case COMPLETED -> UserCode.callback(op, Callback.ON_COMPLETE);
            case EXPIRED -> { // (Q2)
                UserCode.callback(op, Callback.ON_COMPLETE);
                UserCode.callback(op, Callback.ON_EXPIRATION);
            }
            case CANCELLED -> UserCode.callback(op, Callback.ON_CANCEL);
        }
    }
}
