package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;

/**
 * Runs the callbacks of settled operations, on the thread that finished the settle, in bounded
 * stack: a settle finished inside a callback on the same thread (an {@code onComplete} that
 * completes another operation, which completes the next...) is queued and run once the outermost
 * callback returns. Each callback's failure goes to its purgatory's error handler.
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
     *      and a run asked for meanwhile is queued (operation and owner, in order) and taken by
     *      the outermost run before it returns. The queue grows by doubling; if it cannot grow,
     *      the run happens at once instead (deeper, but never lost).
     * (Q2) Every callback is guarded: whatever it throws, Errors included, is reported and the
     *      next one runs. onExpiration runs after onComplete even if onComplete threw.
     */

    private static final ThreadLocal<Callbacks> CURRENT = ThreadLocal.withInitial(Callbacks::new);
    private static final int INITIAL_CAPACITY = 16;

    private boolean running;
    /** A ring of (operation, owner) pairs awaiting their callbacks (Q1). */
    private Object[] queue = new Object[2 * INITIAL_CAPACITY];
    private int head;
    private int size;

    private Callbacks() {
    }

    /** Runs {@code op}'s callbacks for {@code outcome} now, or after the callback running on this thread (Q1). */
    static void run(DelayedOperation op, Outcome outcome, DelayedOperationPurgatory<?> owner) {
        Callbacks callbacks = CURRENT.get();
        if (callbacks.running && callbacks.offer(op, owner)) {
            return;
        }
        boolean outermost = !callbacks.running;
        callbacks.running = true;
        try {
            invoke(op, outcome, owner);
            if (outermost) {
                callbacks.drain();
            }
        } finally {
            if (outermost) {
                callbacks.running = false;
            }
        }
    }

    /** Hands {@code error}, thrown by {@code callback} of {@code op}, to the owner's handler (or logs it). */
    static void reportError(DelayedOperationPurgatory<?> owner, DelayedOperation op, Callback callback,
                            Throwable error) {
        if (owner != null) {
            owner.onCallbackError(op, callback, error);
        } else {
            OperationErrorHandler.report(OperationErrorHandler.logging(), "(none)", op, callback, error);
        }
    }

    private void drain() {
        while (size > 0) {
            DelayedOperation op = (DelayedOperation) queue[head];
            DelayedOperationPurgatory<?> owner = (DelayedOperationPurgatory<?>) queue[head + 1];
            queue[head] = null;
            queue[head + 1] = null;
            head = (head + 2) % queue.length;
            size--;
            invoke(op, op.outcome(), owner);
        }
        head = 0;
    }

    private boolean offer(DelayedOperation op, DelayedOperationPurgatory<?> owner) {
        try {
            if (2 * size == queue.length) {
                grow();
            }
        } catch (OutOfMemoryError cannotGrow) {
            return false; // (Q1): run it at once instead
        }
        int tail = (head + 2 * size) % queue.length;
        queue[tail] = op;
        queue[tail + 1] = owner;
        size++;
        return true;
    }

    private void grow() {
        Object[] bigger = new Object[2 * queue.length];
        int firstPart = queue.length - head; // the ring is full: [head, end) then [0, head)
        System.arraycopy(queue, head, bigger, 0, firstPart);
        System.arraycopy(queue, 0, bigger, firstPart, head);
        head = 0;
        queue = bigger;
    }

    private static void invoke(DelayedOperation op, Outcome outcome, DelayedOperationPurgatory<?> owner) {
        switch (outcome) {
            case COMPLETED -> guarded(op, Callback.ON_COMPLETE, owner);
            case EXPIRED -> {
                guarded(op, Callback.ON_COMPLETE, owner);
                guarded(op, Callback.ON_EXPIRATION, owner);
            }
            case CANCELLED -> guarded(op, Callback.ON_CANCEL, owner);
        }
    }

    private static void guarded(DelayedOperation op, Callback callback, DelayedOperationPurgatory<?> owner) {
        try {
            switch (callback) {
                case ON_COMPLETE -> op.onComplete();
                case ON_EXPIRATION -> op.onExpiration();
                case ON_CANCEL -> op.onCancel();
                default -> throw new AssertionError(callback);
            }
        } catch (Throwable error) {
            reportError(owner, op, callback, error);
        }
    }
}
