package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.util.Arrays;

/**
 * An operation that waits in a {@link DelayedOperationPurgatory} until it can complete or its
 * delay passes. Kafka's {@code DelayedOperation}, with the same three callbacks.
 *
 * <p>A subclass implements {@link #tryComplete()} (check the condition; if it holds, call
 * {@link #forceComplete()} and return its result), {@link #onComplete()} (send the answer) and
 * {@link #onExpiration()} (timeouts only), and may override {@link #onCancel()}. The operation is
 * settled exactly once, by one of: completion ({@code onComplete}), expiry ({@code onComplete}
 * then {@code onExpiration}) or {@link #cancel()} ({@code onCancel}). When it is settled it leaves
 * every watch list and the timer at once.
 *
 * <p>Thread-safety: the purgatory calls {@code tryComplete} with the operation's monitor held,
 * one thread at a time, and never once the operation is settled; {@code onComplete} never runs
 * at the same time as a {@code tryComplete}. Callbacks run with no purgatory lock and no monitor
 * held, so an {@code onComplete} may call {@code checkAndComplete} on any purgatory. Memory
 * consistency effects: actions in a thread prior to the call that settles an operation
 * happen-before its callbacks.
 */
public abstract class DelayedOperation extends TimerTask {

    /*
     * Implementation notes.
     *
     * One int holds the outcome (PENDING until settled) and the flags below: the extension bits
     * of TimerTask's state word (TimerTask T5), so the operation needs no state field of its own.
     * Every write to them happens under the operation's monitor (by CAS, as the timer's bits
     * beside them change concurrently); reads are lock-free. The monitor is needed anyway: it is what keeps tryComplete and onComplete apart
     * (Kafka 4.1's KAFKA-19312), so the exactly-once decision is made under it rather than by a
     * separate CAS.
     *
     * (D1) The outcome leaves PENDING exactly once (settle, under the monitor).
     * (D2) tryComplete is called by the purgatory only under the monitor, only while PENDING, and
     *      with the operation on the calling thread's TryScope: a thread-confined stack of the
     *      operations whose purgatory-driven try this thread is inside, pushed and popped around
     *      each try. A try costs the monitor and no atomic write of its own.
     * (D3) Callbacks never run under the monitor of a purgatory-driven try of the operation: a
     *      settle made while the operation is anywhere on this thread's TryScope (its own
     *      tryComplete, a checkAndComplete nested in it that tries the same operation again, or
     *      another operation's try nested in it) sets CALLBACKS_DUE instead, and the outermost
     *      try of the operation on the stack runs the callbacks after releasing the monitor, and
     *      alone reports the completion. The bit is never cleared: inner tries of the operation
     *      leave it to the outermost, and no try starts on a settled operation. Lock order is
     *      therefore monitor -> shard lock only; the callbacks hold no monitor of the operation
     *      (no deadlock when an onComplete calls checkAndComplete, which takes other operations'
     *      monitors).
     * (D4) Before its callbacks run, a settled operation is unlinked from its watch lists and its
     *      timer entry is cancelled (DelayedOperationPurgatory.onSettled).
     * (D5) WATCHED is set, under the monitor, once the operation is on its watch lists. The
     *      operation is itself the node of its first key's list (watchPrev, watchNext, watchers);
     *      its other keys' nodes are chained from moreNodes. All are written before WATCHED is set
     *      and read only after settle, so the settle's monitor section orders them.
     * (D6) The bind (in submit) runs under the monitor and refuses a settled operation, and settle reads the owner
     *      after its own monitor section: a settle racing the submission either sees the owner
     *      (whose onSettled counts it and frees its admission slot) or comes before the bind,
     *      which then refuses the operation. No settle goes unseen by the purgatory that admitted it.
     * (D7) The owner is not a field: `watchers` is null until bind, then the purgatory's
     *      "unwatched" marker list, then the first key's list; every list's shard knows its
     *      purgatory. (Memory: a pending single-key operation is 72 bytes in all, TimerTask's 48
     *      included, with no other allocation.) It is written under the monitor and needs no
     *      volatile (a fence per submission): every read that decides anything holds the monitor
     *      or follows a later monitor section of the same operation (a settle, D6), and the
     *      unguarded "already submitted?" check in tryCompleteElseWatch is a hint that submit
     *      repeats under the monitor.
     * (D8) With metrics bound, watchedAt holds the watch time in microseconds (TIMED_MICROS, for
     *      delays up to 30 min: exact for waits up to 71 min) or milliseconds (TIMED_MILLIS: exact
     *      up to 49 days), as 32 bits that are subtracted modulo 2^32.
     */

    static final int PENDING = 0;
    static final int OUTCOME_MASK = 3;
    static final int CALLBACKS_DUE = 8;
    static final int WATCHED = 16;
    static final int TIMED_MICROS = 32;
    static final int TIMED_MILLIS = 64;
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long MICROS_MAX_DELAY_MS = 30L * 60 * 1000;
    private static final Outcome[] OUTCOMES = {null, Outcome.COMPLETED, Outcome.EXPIRED, Outcome.CANCELLED};
    private static final ThreadLocal<TryScope> TRY_SCOPE = ThreadLocal.withInitial(TryScope::new);

    /** The operations whose purgatory-driven try the owning thread is inside, innermost last (D2, D3). */
    static final class TryScope {
        private DelayedOperation[] trying = new DelayedOperation[4];
        private int depth;

        void enter(DelayedOperation operation) {
            if (depth == trying.length) {
                trying = Arrays.copyOf(trying, depth * 2);
            }
            trying[depth++] = operation;
        }

        void exit() {
            trying[--depth] = null;
        }

        boolean isTrying(DelayedOperation operation) {
            for (int i = depth - 1; i >= 0; i--) {
                if (trying[i] == operation) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Null, then the owner's "unwatched" marker, then the first key's list (D5, D7). */
    Watchers watchers;
    /** Links on the first key's list (Watchers W1, W2); guarded by that shard's lock. */
    Object watchPrev;
    volatile Object watchNext;
    /** The nodes of the other keys (D5). */
    WatchNode moreNodes;
    /** When it was watched, in the unit its TIMED_* bit names (D8). */
    int watchedAt;

    /**
     * Creates an operation that expires {@code delayMs} milliseconds after it is watched.
     *
     * @throws IllegalArgumentException if {@code delayMs} is negative or above {@link Timer#MAX_DELAY_MS}
     */
    protected DelayedOperation(long delayMs) {
        super(checkDelay(delayMs));
    }

    private static long checkDelay(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must be >= 0: " + delayMs);
        }
        if (delayMs > Timer.MAX_DELAY_MS) {
            throw new IllegalArgumentException("delayMs must be <= " + Timer.MAX_DELAY_MS
                    + " (Timer.MAX_DELAY_MS); for operations that never expire build the purgatory"
                    + " with timerEnabled(false): " + delayMs);
        }
        return delayMs;
    }

    /**
     * Checks whether the operation can complete; if so, calls {@link #forceComplete()} and returns
     * its result. Called by the purgatory with the operation's monitor held, never after it is
     * settled. An exception counts as "not yet" and goes to the purgatory's error handler.
     */
    protected abstract boolean tryComplete();

    /** Called exactly once when the operation is completed or expires; builds and sends the answer. */
    protected abstract void onComplete();

    /** Called after {@link #onComplete()} when the operation expired. */
    protected abstract void onExpiration();

    /** Called exactly once if the operation is cancelled, instead of the other callbacks. Does nothing by default. */
    protected void onCancel() {
    }

    /**
     * Completes the operation unless it is already settled. Returns true iff this call completed
     * it. Called from {@link #tryComplete()}, {@link #onComplete()} runs right after that
     * {@code tryComplete} returns; called elsewhere, it runs before this method returns.
     */
    public final boolean forceComplete() {
        return settle(Outcome.COMPLETED);
    }

    /**
     * Cancels the operation unless it is already settled: it leaves its watch lists and the timer
     * and {@link #onCancel()} runs. Returns true iff this call cancelled it.
     */
    @Override
    public final boolean cancel() {
        return settle(Outcome.CANCELLED);
    }

    /** Returns true once the operation is settled, whatever the outcome. */
    public final boolean isCompleted() {
        return (extensionBits() & OUTCOME_MASK) != PENDING;
    }

    /** Returns true iff the operation was settled by cancellation (not: its timer entry was removed). */
    @Override
    public final boolean isCancelled() {
        return (extensionBits() & OUTCOME_MASK) == Outcome.CANCELLED.ordinal() + 1;
    }

    /** Returns how the operation was settled, or null while it is pending. */
    public final Outcome outcome() {
        return OUTCOMES[extensionBits() & OUTCOME_MASK];
    }

    /** The timer's expiry: expires the operation unless it is already settled. */
    @Override
    public final void run() {
        settle(Outcome.EXPIRED);
    }

    // ---- state: TimerTask's extension bits (T5), written under the monitor, by CAS ----

    private void setBits(int bits) {
        replaceBits(0, bits);
    }

    /** Clears {@code clear} and sets {@code set}; returns the bits before. The timer's bits may change meanwhile. */
    private int replaceBits(int clear, int set) {
        for (;;) {
            int s = extensionBits();
            if (compareAndSetExtensionBits(s, (s & ~clear) | set)) {
                return s;
            }
        }
    }

    // ---- for the purgatory (package-private) ----

    /** The purgatory this operation was submitted to, or null (D7). */
    final DelayedOperationPurgatory<?> purgatory() {
        Watchers w = watchers;
        return w == null ? null : w.shard.purgatory;
    }

    final boolean isWatched() {
        return (extensionBits() & WATCHED) != 0;
    }

    /** Called by the watch action, under the monitor (D5); records the watch time if {@code timed} (D8). */
    final void markWatched(boolean timed, long nowNanos) {
        assert Thread.holdsLock(this);
        int flags = WATCHED;
        if (timed) {
            boolean micros = delayMs() <= MICROS_MAX_DELAY_MS;
            watchedAt = (int) Math.floorDiv(nowNanos, micros ? NANOS_PER_MICRO : NANOS_PER_MILLI);
            flags |= micros ? TIMED_MICROS : TIMED_MILLIS;
        }
        setBits(flags);
    }

    /** How long it has been watched at {@code nowNanos}, or -1 if its watch time was not recorded (D8). */
    final long watchedNanos(long nowNanos) {
        int s = extensionBits();
        long unit = (s & TIMED_MICROS) != 0 ? NANOS_PER_MICRO : (s & TIMED_MILLIS) != 0 ? NANOS_PER_MILLI : 0;
        if (unit == 0) {
            return -1;
        }
        int now = (int) Math.floorDiv(nowNanos, unit);
        return Integer.toUnsignedLong(now - watchedAt) * unit;
    }

    /** Removes this operation's timer entry (TimerTask's cancel, not the operation's). */
    final void cancelTimerEntry() {
        super.cancel();
    }

    /** {@link #submit} refused the operation: it is settled already (D6). */
    static final int REFUSED_SETTLED = -1;
    /** {@link #submit} refused the operation: it was submitted before (D7). */
    static final int REFUSED_SUBMITTED = -2;
    /** {@link #submit} watched the operation (or another thread settled it meanwhile). */
    static final int NOT_COMPLETED = 0;
    /** {@link #submit} completed the operation. */
    static final int COMPLETED_HERE = 1;

    /**
     * Binds this operation to {@code owner} and runs Kafka's safeTryCompleteOrElse, all under the
     * monitor: tries; if still pending, watches it on its keys ({@code key}, or {@code keys} when
     * {@code key} is null) and tries again. Returns one of the codes above.
     */
    final int submit(DelayedOperationPurgatory<?> owner, Object key, Object[] keys) {
        int settledHere;
        synchronized (this) {
            if (isCompleted()) {
                return REFUSED_SETTLED; // (D6): a settle racing the submission comes first
            }
            if (watchers != null) {
                return REFUSED_SUBMITTED;
            }
            watchers = owner.unwatched(); // (D6), (D7): bound under the monitor
            TryScope scope = TRY_SCOPE.get();
            scope.enter(this); // (D2)
            try {
                guardedTryComplete();
                if ((extensionBits() & OUTCOME_MASK) == PENDING) {
                    owner.watch(this, key, keys);
                    if ((extensionBits() & OUTCOME_MASK) == PENDING) {
                        guardedTryComplete();
                    }
                }
            } finally {
                scope.exit();
                settledHere = settledByTry(scope);
            }
        }
        return afterTry(settledHere) ? COMPLETED_HERE : NOT_COMPLETED;
    }

    /** The calling thread's try scope, for {@link #safeTryComplete(TryScope)} (D2). */
    static TryScope tryScope() {
        return TRY_SCOPE.get();
    }

    /**
     * Kafka's safeTryComplete: under the monitor, tries unless already settled. {@code scope} is
     * the calling thread's ({@link #tryScope()}). Returns true iff this call completed the operation.
     */
    final boolean safeTryComplete(TryScope scope) {
        if (isCompleted()) {
            return false;
        }
        int settledHere;
        synchronized (this) {
            if (isCompleted()) {
                return false;
            }
            scope.enter(this); // (D2)
            try {
                guardedTryComplete();
            } finally {
                scope.exit();
                settledHere = settledByTry(scope);
            }
        }
        return afterTry(settledHere);
    }

    private void guardedTryComplete() {
        try {
            tryComplete();
        } catch (Throwable error) {
            reportError(Callback.TRY_COMPLETE, error);
        }
    }

    /**
     * The outcome if a settle nested in this thread's tries of the operation left its callbacks
     * to them and this was the outermost of those tries (D3), else PENDING.
     */
    private int settledByTry(TryScope scope) {
        if (scope.isTrying(this)) {
            return PENDING; // an outer try of this operation runs them
        }
        int s = extensionBits();
        return (s & CALLBACKS_DUE) != 0 ? s & OUTCOME_MASK : PENDING;
    }

    private boolean afterTry(int settledHere) {
        if (settledHere == PENDING) {
            return false;
        }
        Outcome outcome = OUTCOMES[settledHere];
        runCallbacks(outcome); // (D3): monitor released
        return outcome == Outcome.COMPLETED;
    }

    /** Settles the operation with {@code outcome}, exactly once (D1). True iff this call settled it. */
    final boolean settle(Outcome outcome) {
        if (isCompleted()) {
            return false;
        }
        boolean deferred;
        boolean watched;
        synchronized (this) {
            int s = extensionBits();
            if ((s & OUTCOME_MASK) != PENDING) {
                return false;
            }
            deferred = TRY_SCOPE.get().isTrying(this); // (D3): nested in a try of this operation
            watched = (s & WATCHED) != 0;
            replaceBits(0, (outcome.ordinal() + 1) | (deferred ? CALLBACKS_DUE : 0));
        }
        DelayedOperationPurgatory<?> owner = purgatory();
        if (owner != null) {
            owner.onSettled(this, outcome, watched); // (D4)
        }
        if (!deferred) {
            runCallbacks(outcome);
        }
        return true;
    }

    private void runCallbacks(Outcome outcome) {
        switch (outcome) {
            case COMPLETED -> runCallback(Callback.ON_COMPLETE);
            case EXPIRED -> {
                runCallback(Callback.ON_COMPLETE);
                runCallback(Callback.ON_EXPIRATION);
            }
            case CANCELLED -> runCallback(Callback.ON_CANCEL);
        }
    }

    private void runCallback(Callback callback) {
        try {
            switch (callback) {
                case ON_COMPLETE -> onComplete();
                case ON_EXPIRATION -> onExpiration();
                case ON_CANCEL -> onCancel();
                default -> throw new AssertionError(callback);
            }
        } catch (Throwable error) {
            reportError(callback, error);
        }
    }

    private void reportError(Callback callback, Throwable error) {
        DelayedOperationPurgatory<?> owner = purgatory();
        if (owner != null) {
            owner.onCallbackError(this, callback, error);
        } else {
            OperationErrorHandler.report(OperationErrorHandler.logging(), "(none)", this, callback, error);
        }
    }
}
