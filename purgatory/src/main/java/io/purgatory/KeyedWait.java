package io.purgatory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * One wait of {@link KeyedWaits}: a purgatory operation whose answer is a value handed over by
 * {@link KeyedWaits#complete}, an early event retained for its key, or, at its timeout, the
 * fallback or a {@link WaitTimeoutException}. Its future is a {@link WaitFuture}: completing or cancelling
 * that future in any way ends the wait at once.
 */
final class KeyedWait<V> extends DelayedOperation {

    /*
     * Implementation notes.
     *
     * (W1) The answer is decided by one CAS on `answer`, from NONE to the value (or a Failure),
     *      and only then is the operation completed (forceComplete). Two events accepted at once
     *      therefore never overwrite each other: the first CAS wins, the other offer returns false.
     *      The winner's forceComplete can still lose to an expiry or a cancel; the outcome, not the
     *      answer, decides what the future gets.
     * (W2) A predicate can run on several threads at once (an event on each), never on a settled
     *      wait (checked first), and never after the answer is taken (checked after it, too).
     * (W3) The wait's settle decides the future's answer, never the future itself: the answer is a
     *      function of the outcome and of `answer`, which is fixed once settled (a cancel seals a
     *      NONE answer by a CAS to SEALED). answerFuture computes it; the callbacks call it, and so
     *      does a completion of the future from outside once its cancel() has run, so that the
     *      future is done when that call returns even if the callbacks run later. A completion
     *      from outside takes the answer (an Outside, by the CAS of W1) and then cancels the wait:
     *      its result is the future's iff that answer is the wait's and the wait ends cancelled.
     */

    private static final Object NONE = new Object();
    /** The answer of a wait cancelled without one (W3). */
    private static final Object SEALED = new Object();
    private static final VarHandle ANSWER;

    static {
        try {
            ANSWER = MethodHandles.lookup().findVarHandle(KeyedWait.class, "answer", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final KeyedWaits<?, V> owner;
    /** The one key (Object) or the keys (Object[]), for early events; null if the waits retain none. */
    private final Object keys;
    private final Predicate<? super V> accept;
    private final Object fallback;
    /** The position an event must carry to answer the wait; NO_POSITION if any event may. */
    private final long atLeast;
    private final WaitFuture<V> future = new WaitFuture<>(this);
    private volatile Object answer = NONE;

    KeyedWait(KeyedWaits<?, V> owner, long timeoutMs, Object keys, Predicate<? super V> accept, Object fallback,
              long atLeast) {
        super(timeoutMs);
        this.owner = owner;
        this.keys = keys;
        this.accept = accept;
        this.fallback = fallback;
        this.atLeast = atLeast;
    }

    static Object noFallback() {
        return NONE;
    }

    WaitFuture<V> future() {
        return future;
    }

    /**
     * Answers the wait with {@code value}, an event at {@code position} (NO_POSITION if it has
     * none), if the wait is pending, the position reaches its own and its predicate accepts the
     * value (W1, W2); true iff this call completed it.
     */
    boolean offer(V value, long position) {
        if (isCompleted() || (atLeast != KeyedWaits.NO_POSITION && position < atLeast) || !accepts(value)) {
            return false;
        }
        return ANSWER.compareAndSet(this, NONE, value) && forceComplete();
    }

    /** Fails the wait with {@code error} if it is pending (W1); true iff this call completed it. */
    boolean fail(Throwable error) {
        return !isCompleted() && ANSWER.compareAndSet(this, NONE, new Failure(error)) && forceComplete();
    }

    /** Cancels the wait from its future (W3); true iff the future is now cancelled, as CompletableFuture's. */
    boolean cancelFromFuture() {
        cancel();
        answerFuture();
        return future.isCancelled();
    }

    /**
     * Ends the wait from its future with {@code value}, or {@code error} if not null (W3); true iff
     * that is now the future's answer.
     */
    boolean completeFromFuture(V value, Throwable error) {
        boolean taken = !isCompleted() && ANSWER.compareAndSet(this, NONE, new Outside(value, error));
        if (taken) {
            cancel();
        }
        answerFuture(); // settled unless another thread took the answer and is settling it now
        return taken && isCancelled();
    }

    /** The submission's tries: an early event retained for one of the keys answers the wait at once. */
    @Override
    protected boolean tryComplete() {
        EventRetention<V> retention = owner.retention();
        if (retention == null) {
            return false;
        }
        if (keys instanceof Object[] all) {
            for (Object key : all) {
                if (retention.offerTo(key, this)) {
                    return true;
                }
            }
            return false;
        }
        return retention.offerTo(keys, this);
    }

    @Override
    protected void onComplete() {
        answerFuture();
    }

    @Override
    protected void onExpiration() {
        // onComplete answered with the fallback or a TimeoutException
    }

    @Override
    protected void onCancel() {
        answerFuture();
    }

    @Override
    public String toString() {
        return "KeyedWait[" + owner.name() + ", " + delayMs() + " ms, " + outcome() + "]";
    }

    /** Completes the future with the settled wait's answer (W3); nothing while it is pending. */
    private void answerFuture() {
        Outcome outcome = outcome();
        if (outcome == Outcome.EXPIRED) {
            if (fallback != NONE) {
                @SuppressWarnings("unchecked") // the fallback was given as a V
                V value = (V) fallback;
                future.settle(value, null);
            } else {
                future.settle(null, owner.timedOut(delayMs()));
            }
        } else if (outcome == Outcome.CANCELLED) {
            ANSWER.compareAndSet(this, NONE, SEALED);
            if (answer instanceof Outside outside) {
                @SuppressWarnings("unchecked") // completeFromFuture took a V
                V value = (V) outside.value;
                future.settle(value, outside.error);
            } else {
                future.settle(null, new CancellationException("wait cancelled"));
            }
        } else if (outcome == Outcome.COMPLETED) {
            Object a = answer;
            if (a instanceof Failure failure) {
                future.settle(null, failure.error);
            } else {
                @SuppressWarnings("unchecked") // a completed wait's answer is a Failure or the V its offer took
                V value = (V) a;
                future.settle(value, null);
            }
        }
    }

    private boolean accepts(V value) {
        if (accept == null) {
            return true;
        }
        try {
            return accept.test(value);
        } catch (Throwable error) { // as a throwing tryComplete: "not this value", reported
            Callbacks.reportError(owner.purgatory(), this, OperationErrorHandler.Callback.TRY_COMPLETE, error);
            return false;
        }
    }

    /** An error handed over by completeExceptionally: never a V, since the class is private. */
    private record Failure(Throwable error) {
    }

    /** The answer given to the wait's future from outside: a value, or an error if not null (W3). */
    private record Outside(Object value, Throwable error) {
    }

    /**
     * The future of a wait. Completing it from outside ({@code cancel}, {@code complete},
     * {@code completeExceptionally}, and so {@code orTimeout} and {@code completeOnTimeout}) ends
     * the wait at once, counted as cancelled, unless the wait has already ended: then the call
     * returns false and the wait's own answer stands (W3). {@code obtrude*} overwrite the answer
     * whatever it is, and end the wait too.
     */
    static final class WaitFuture<V> extends CompletableFuture<V> {

        private final KeyedWait<V> wait;

        WaitFuture(KeyedWait<V> wait) {
            this.wait = wait;
        }

        /** Completes the future with the wait's answer (W3), unless it is done. */
        void settle(V value, Throwable error) {
            if (error == null) {
                super.complete(value);
            } else if (error instanceof CancellationException) {
                super.cancel(false);
            } else {
                super.completeExceptionally(error);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return wait.cancelFromFuture();
        }

        @Override
        public boolean complete(V value) {
            return wait.completeFromFuture(value, null);
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            return wait.completeFromFuture(null, Objects.requireNonNull(ex, "ex"));
        }

        @Override
        public void obtrudeValue(V value) {
            super.obtrudeValue(value);
            wait.cancel();
        }

        @Override
        public void obtrudeException(Throwable ex) {
            super.obtrudeException(ex);
            wait.cancel();
        }

        @Override
        public String toString() {
            return super.toString() + " of " + wait;
        }
    }
}
