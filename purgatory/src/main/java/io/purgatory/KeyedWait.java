package io.purgatory;

import io.purgatory.internal.EventRetention;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.UserCode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.function.Supplier;

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
     * (V1) The answer is decided by one CAS on `answer`, from NONE to the value (or a Failure),
     *      and only then is the operation completed (forceComplete). Two events accepted at once
     *      therefore never overwrite each other: the first CAS wins, the other offer returns false.
     *      The winner's forceComplete can still lose to an expiry or a cancel; the outcome, not the
     *      answer, decides what the future gets.
     * (V2) A predicate can run on several threads at once (an event on each), never on a settled
     *      wait (checked first), and never after the answer is taken (checked after it, too).
     * (V3) The wait's settle decides the future's answer, never the future itself: the answer is a
     *      function of the outcome and of `answer`, which is fixed once settled (a cancel seals a
     *      NONE answer by a CAS to SEALED). answerFuture computes it; the callbacks call it, and so
     *      does a completion of the future from outside once its cancel() has run, so that the
     *      future is done when that call returns even if the callbacks run later. A completion
     *      from outside takes the answer (an Outside, by the CAS of V1) and then cancels the wait:
     *      its result is the future's iff that answer is the wait's and the wait ends cancelled.
     *      A wait answered at its submission (an early event) gets its future completed by the
     *      submission itself too, so the future is done when await returns, even inside another
     *      wait's callback, where its own callbacks run only after that callback returns (Q1).
     * (V4) A wait that times out or is cancelled, other than by its waits' close, records the end
     *      on each of its keys (EventRetention's X4) in its callback, before it answers its future: so an
     *      event handed over once the caller can see the timeout or the cancel finds the end, and
     *      is told late, not unanswered (KeyedEvents' X5).
     * (V5) A retained event a try reads is held from the read until the offer's verdict, and
     *      released as accounted iff it answered the wait (EventRetention's X3).
     */

    /** The position of an event that carries none: it answers no positioned wait. */
    static final long NO_POSITION = Long.MIN_VALUE;

    /**
     * {@code position}, checked: {@link #NO_POSITION} means none, so it is no position an event or a wait can give.
     *
     * @throws IllegalArgumentException if it is {@code Long.MIN_VALUE}
     */
    static long position(long position) {
        if (position == NO_POSITION) {
            throw new IllegalArgumentException("position must be above Long.MIN_VALUE: " + position);
        }
        return position;
    }

    /** No answer yet; as a fallback, none. */
    static final Object NONE = new Object();
    /** The answer of a wait cancelled without one (V3). */
    private static final Object SEALED = new Object();
    private static final VarHandle ANSWER;

    static {
        try {
            ANSWER = MethodHandles.lookup().findVarHandle(KeyedWait.class, "answer", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Where early events are kept; null if the waits retain none. */
    private final EventRetention<V> retention;
    /** Where the waits remember the ends that tell a late event; null if they tell none. */
    private final EventRetention<?> ends;
    /** The one key, for early events and ends; null if the wait is on several keys or the waits need neither. */
    private final Object key;
    /** The keys of a wait on several, for early events and ends; null otherwise. */
    private final Object[] keys;
    private final Predicate<? super V> accept;
    private final Object fallback;
    /** The position an event must carry to answer the wait; NO_POSITION if any event may. */
    private final long atLeast;
    private final WaitFuture<V> future = new WaitFuture<>(this);
    private volatile Object answer = NONE;

    /**
     * A wait on {@code key}, or on {@code keys} if the key is null; {@code retention} and
     * {@code ends} may be null (the waits then keep no key of it).
     */
    KeyedWait(long timeoutMs, EventRetention<V> retention, EventRetention<?> ends, Object key, Object[] keys,
              Predicate<? super V> accept, Object fallback, long atLeast) {
        super(timeoutMs);
        this.retention = retention;
        this.ends = ends;
        boolean keepsKeys = retention != null || ends != null;
        this.key = keepsKeys ? key : null;
        this.keys = keepsKeys ? keys : null;
        this.accept = accept;
        this.fallback = fallback;
        this.atLeast = atLeast;
    }

    /** The future, once the submission returned: completed already if the wait was answered then (V3). */
    WaitFuture<V> answeredFuture() {
        if (isCompleted()) {
            answerFuture();
        }
        return future;
    }

    /**
     * Answers the wait with {@code value}, an event at {@code position} (NO_POSITION if it has
     * none), if the wait is pending, the position reaches its own and its predicate accepts the
     * value (V1, V2); true iff this call completed it. The value is a V: the engine holds only the
     * waits of one KeyedWaits, whose events are its V's.
     */
    boolean offer(Object value, long position) {
        if (isCompleted() || (atLeast != NO_POSITION && position < atLeast) || !accepts(value)) {
            return false;
        }
        return ANSWER.compareAndSet(this, NONE, value) && forceComplete();
    }

    /** Fails the wait with {@code error} if it is pending (V1); true iff this call completed it. */
    boolean fail(Throwable error) {
        return !isCompleted() && ANSWER.compareAndSet(this, NONE, new Failure(error)) && forceComplete();
    }

    /** Cancels the wait from its future (V3); true iff the future is now cancelled, as CompletableFuture's. */
    boolean cancelFromFuture() {
        cancel();
        answerFuture();
        return future.isCancelled();
    }

    /**
     * Ends the wait from its future with {@code value}, or {@code error} if not null (V3); true iff
     * that is now the future's answer.
     */
    boolean completeFromFuture(V value, Throwable error) {
        boolean taken = !isCompleted()
                && ANSWER.compareAndSet(this, NONE, new Outside(error == null ? value : new Failure(error)));
        if (taken) {
            cancel();
        }
        answerFuture(); // settled unless another thread took the answer and is settling it now
        return taken && isCancelled();
    }

    /** The error the wait was failed with by {@code completeExceptionally}, else null (a WaitObserver's FAILED). */
    Throwable failure() {
        return outcome() == Outcome.COMPLETED && answer instanceof Failure f ? f.error() : null;
    }

    /** The submission's tries: an early event retained for one of the keys answers the wait at once. */
    @Override
    protected boolean tryComplete() {
        for (int i = 0, n = retention == null ? 0 : keys == null ? 1 : keys.length; i < n; i++) {
            if (offerRetained(keys == null ? key : keys[i])) {
                return true;
            }
        }
        return false;
    }

    private boolean offerRetained(Object k) {
        EventRetention.Event<V> event = retention.hold(k);
        if (event == null) {
            return false;
        }
        boolean answered = false;
        try {
            answered = offer(event.value(), event.position());
        } finally {
            retention.release(event, answered); // (V5)
        }
        if (answered) {
            retention.hit();
        }
        return answered;
    }

    @Override
    protected void onComplete() {
        try {
            if (outcome() != Outcome.COMPLETED) {
                rememberEnd(); // expired, or cancelled (V4)
            }
        } finally {
            answerFuture();
        }
    }

    @Override
    protected void onExpiration() {
        // onComplete answered with the fallback or a TimeoutException
    }

    @Override
    protected void onCancel() {
        onComplete();
    }

    /** The wait timed out or was cancelled: its keys remember the end, unless its waits' close ended it (V4, O9). */
    private void rememberEnd() {
        if (ends == null || OperationState.wasSettledByClose(this)) {
            return;
        }
        RuntimeException failed = null; // a key that throws fails this callback, not its other keys' ends
        for (int i = 0, n = keys == null ? 1 : keys.length; i < n; i++) {
            try {
                ends.remember(keys == null ? key : keys[i]);
            } catch (RuntimeException keyFailure) {
                failed = failed == null ? keyFailure : failed;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public String toString() {
        String name = OperationState.ownerName(this);
        return "KeyedWait[" + (name == null ? "unsubmitted" : name) + ", " + delayMs() + " ms, " + outcome() + "]";
    }

    /** Completes the future with the settled wait's answer (V3); nothing while it is pending. */
    private void answerFuture() {
        Outcome outcome = outcome();
        if (outcome == Outcome.EXPIRED) {
            future.settle(fallback != NONE ? fallback : new Failure(timedOut()));
        } else if (outcome == Outcome.CANCELLED) {
            ANSWER.compareAndSet(this, NONE, SEALED);
            future.settle(answer instanceof Outside o ? o.answer
                    : new Failure(new CancellationException("wait cancelled")));
        } else if (outcome == Outcome.COMPLETED) {
            future.settle(answer);
        }
    }

    private boolean accepts(Object value) {
        @SuppressWarnings("unchecked") // an offered value is a V (offer)
        V v = (V) value;
        return accept == null || UserCode.test(accept, v, this); // a predicate that throws: "not this value"
    }

    /** The timeout's answer: the wait's time ran out, or its waits closed first. */
    private WaitTimeoutException timedOut() {
        String owner = OperationState.ownerName(this);
        String name = owner == null ? "?" : owner;
        if (OperationState.wasSettledByClose(this)) { // (O9)
            return new WaitTimeoutException("keyed waits '" + name + "' closed before an event answered the wait",
                    true);
        }
        return new WaitTimeoutException("no event answered the wait in '" + name + "' within " + delayMs() + " ms",
                false);
    }

    /** An error handed over by completeExceptionally: never a V, since the class is private. */
    private record Failure(Throwable error) {
    }

    /** The answer given to the wait's future from outside: a value, or a Failure (V3). */
    private record Outside(Object answer) {
    }

    /**
     * The future of a wait. Completing it from outside ({@code cancel}, {@code complete},
     * {@code completeExceptionally}, and so {@code orTimeout} and {@code completeOnTimeout}) ends
     * the wait at once, counted as cancelled, unless the wait has already ended: then the call
     * returns false and the wait's own answer stands (V3). {@code obtrude*} overwrite the answer
     * whatever it is, and end the wait too.
     */
    static final class WaitFuture<V> extends CompletableFuture<V> {

        private final KeyedWait<V> wait;

        WaitFuture(KeyedWait<V> wait) {
            this.wait = wait;
        }

        /** Completes the future with the wait's answer (V3): a V or a Failure; nothing if it is done. */
        void settle(Object answer) {
            if (!(answer instanceof Failure f)) {
                @SuppressWarnings("unchecked") // an answer that is not a Failure is a V: offered, a fallback or outside
                V value = (V) answer;
                super.complete(value);
            } else if (f.error instanceof CancellationException) {
                super.cancel(false);
            } else {
                super.completeExceptionally(f.error);
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

        /** Completes the future, and so ends the wait, with what {@code supplier} gives, on {@code executor}. */
        @Override
        public CompletableFuture<V> completeAsync(Supplier<? extends V> supplier, Executor executor) {
            Objects.requireNonNull(supplier, "supplier");
            Objects.requireNonNull(executor, "executor");
            executor.execute(() -> {
                V value;
                try {
                    value = supplier.get();
                } catch (Throwable error) {
                    completeExceptionally(error);
                    return;
                }
                complete(value);
            });
            return this;
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
