package io.purgatory.internal;

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
    /** A ring of operations awaiting their callbacks (Q1). */
    private Operation[] queue = new Operation[16];
    private int head;
    private int size;

    /** The current thread's (InProgress keeps one per thread). */
    static Callbacks current() {
        return InProgress.current().callbacks;
    }

    /**
     * Runs {@code op}'s callbacks for {@code outcome}: now if no callback runs on this thread, or
     * if {@code now} (Q3); else after the one running (Q1).
     */
    static void run(Operation op, int outcome, boolean now) {
        Callbacks callbacks = current();
        if (callbacks.running) {
            if (now) {
                invoke(op, outcome);
            } else {
                callbacks.offer(op);
            }
            return;
        }
        callbacks.running = true;
        try {
            invoke(op, outcome);
            callbacks.drain();
        } finally {
            callbacks.running = false;
        }
    }

    private void drain() {
        while (size > 0) {
            Operation op = queue[head];
            queue[head] = null;
            head = (head + 1) & (queue.length - 1);
            size--;
            invoke(op, OperationState.outcome(op));
        }
        head = 0;
    }

    private void offer(Operation op) {
        if (size == queue.length) { // full: [head, end) then [0, head) into one twice the size
            Operation[] bigger = new Operation[2 * size];
            int firstPart = size - head;
            System.arraycopy(queue, head, bigger, 0, firstPart);
            System.arraycopy(queue, 0, bigger, firstPart, head);
            head = 0;
            queue = bigger;
        }
        queue[(head + size) & (queue.length - 1)] = op;
        size++;
    }

    private static void invoke(Operation op, int outcome) {
        switch (outcome) {
            case OperationState.COMPLETED -> UserCode.callback(op, UserCode.ON_COMPLETE);
            case OperationState.EXPIRED -> { // (Q2)
                UserCode.callback(op, UserCode.ON_COMPLETE);
                UserCode.callback(op, UserCode.ON_EXPIRATION);
            }
            default -> UserCode.callback(op, UserCode.ON_CANCEL);
        }
    }
}
