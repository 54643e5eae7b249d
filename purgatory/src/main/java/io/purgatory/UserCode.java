package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.Clock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one boundary where the library calls code it does not own: an operation's
 * {@code tryComplete} and callbacks, a wait's predicate, an error handler, a metrics recorder.
 * Each call returns a plain result whatever the code throws, an {@code Error}, a
 * {@code StackOverflowError} or a handler that rethrows what it was given; the failure is
 * reported once and the caller carries on, its state whole.
 */
final class UserCode {

    /*
     * Implementation notes.
     *
     * (U1) Nothing escapes. Each entry catches Throwable around the user's call, and separately
     *      around the report of what it threw: a report made with the stack nearly exhausted (a
     *      StackOverflowError) may fail in turn, and is then dropped rather than thrown.
     * (U2) A failure is reported once: its owner counts it and hands it to its error handler
     *      (the process-wide one for an operation never submitted); a handler that throws is
     *      logged with the original failure attached as suppressed, unless it threw that very
     *      failure (an exception cannot suppress itself).
     * The keys' hashCode and equals are the one kind of user code not called here: the maps of
     * the watch lists call them, and WatcherList contains what they throw (K8).
     */

    /** What {@link #nanoTime} returns when the clock failed. */
    static final long NO_TIME = Long.MIN_VALUE;

    /** The logger of the failures contained here: the default error handler's. */
    static final String LOGGER = LoggingHandler.LOGGER;

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private UserCode() {
    }

    /**
     * Runs {@code op}'s tryComplete. Returns its result; true if it threw, so that a try which
     * completed the operation before throwing still reports the completion (O7).
     */
    static boolean tryComplete(DelayedOperation op) {
        try {
            return op.tryComplete();
        } catch (Throwable error) {
            try {
                failed(op, Callback.TRY_COMPLETE, error);
            } catch (Throwable reportFailed) {
                // (U1): the stack ran out while reporting; the failure is dropped, never thrown
            }
            return true;
        }
    }

    /** Runs {@code op}'s {@code callback} (onComplete, onExpiration or onCancel). */
    static void callback(DelayedOperation op, Callback callback) {
        try {
            switch (callback) {
                case ON_COMPLETE -> op.onComplete();
                case ON_EXPIRATION -> op.onExpiration();
                case ON_CANCEL -> op.onCancel();
                case TRY_COMPLETE -> throw new AssertionError(callback);
            }
        } catch (Throwable error) {
            try {
                failed(op, callback, error);
            } catch (Throwable reportFailed) {
                // (U1): the stack ran out while reporting; the failure is dropped, never thrown
            }
        }
    }

    /** Whether {@code predicate} accepts {@code value} for {@code op}; one that throws rejects it. */
    static <V> boolean test(Predicate<? super V> predicate, V value, DelayedOperation op) {
        try {
            return predicate.test(value);
        } catch (Throwable error) {
            try {
                failed(op, Callback.TRY_COMPLETE, error);
            } catch (Throwable reportFailed) {
                // (U1): the stack ran out while reporting; the failure is dropped, never thrown
            }
            return false;
        }
    }

    /**
     * Records a settle that waited {@code waitedNanos} with {@code recorder}, and its lateness if
     * {@code latenessNanos} is not negative; a failure is logged (U1).
     */
    static void recordSettled(MetricsRecorder recorder, Outcome outcome, long waitedNanos, long latenessNanos,
                              String purgatory) {
        try {
            recorder.recordSettled(outcome, waitedNanos);
            if (latenessNanos >= 0) {
                recorder.recordLateness(latenessNanos);
            }
        } catch (Throwable error) {
            log(purgatory, "its MetricsRecorder threw; the operation settled regardless", error);
        }
    }

    /** {@code clock}'s reading, or {@link #NO_TIME} if it failed (logged, U1). */
    static long nanoTime(Clock clock, String purgatory) {
        try {
            long now = clock.nanoTime();
            return now == NO_TIME ? NO_TIME + 1 : now;
        } catch (Throwable error) {
            log(purgatory, "its clock threw; the reading is skipped", error);
            return NO_TIME;
        }
    }

    /** {@code observer}'s handle for a wait that starts; null if it threw (logged, U1). */
    static Object started(WaitObserver observer, WaitStart start, String purgatory) {
        try {
            return observer.started(start);
        } catch (Throwable error) {
            log(purgatory, "its WaitObserver threw when a wait started; the wait goes on unobserved", error);
            return null;
        }
    }

    /** Tells {@code observer} a wait ended; a failure is logged (U1). */
    static void ended(WaitObserver observer, Object handle, WaitOutcome outcome, Throwable failure,
                      String purgatory) {
        try {
            observer.ended(handle, outcome, failure);
        } catch (Throwable error) {
            log(purgatory, "its WaitObserver threw when a wait ended; the wait ended regardless", error);
        }
    }

    /** Closes {@code recorder}; a failure is logged (U1). */
    static void closeRecorder(MetricsRecorder recorder, String purgatory) {
        try {
            recorder.close();
        } catch (Throwable error) {
            log(purgatory, "its MetricsRecorder threw on close; the purgatory closed regardless", error);
        }
    }

    /** Hands {@code error}, thrown by {@code callback} of {@code op}, to {@code handler} (U2). Never throws. */
    static void report(OperationErrorHandler handler, String purgatory, DelayedOperation op, Callback callback,
                       Throwable error) {
        try {
            handler.onError(purgatory, op, callback, error);
        } catch (Throwable handlerError) {
            if (handlerError != error) {
                handlerError.addSuppressed(error);
            }
            log(purgatory, "its error handler threw while handling a failure of " + callback.methodName(),
                    handlerError);
        }
    }

    /** Logs a failure of user code the library has contained. Never throws (U1). */
    static void log(String purgatory, String what, Throwable error) {
        try {
            LOG.error("Purgatory '{}': {}", purgatory, what, error);
        } catch (Throwable loggingFailed) {
            // (U1): nothing is left to tell it to
        }
    }

    /**
     * Counts and reports a failure (U2). Callers call it from a catch block, in a try of its own:
     * with the stack nearly exhausted the call itself may fail (U1).
     */
    private static void failed(DelayedOperation op, Callback callback, Throwable error) {
        Owner owner = OperationState.ownerOf(op);
        if (owner != null) {
            owner.failed(op, callback, error);
        } else {
            report(OperationErrorHandler.processDefault(), "(none)", op, callback, error);
        }
    }
}
