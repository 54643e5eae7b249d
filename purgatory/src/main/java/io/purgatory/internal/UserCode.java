package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.timer.Clock;
import io.purgatory.timer.TaskErrorHandler;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one boundary where the library calls code it does not own: an operation's
 * {@code tryComplete} and callbacks, a wait's predicate, and the seams below (an error handler, an
 * observer, a metrics recorder, a listener of unanswered events, a clock), which the public
 * package adapts from the user's types. Each call returns a plain result whatever the code
 * throws, an {@code Error}, a {@code StackOverflowError} or a handler that rethrows what it was
 * given; the failure is reported once and the caller carries on, its state whole.
 */
public final class UserCode {

    /*
     * Implementation notes.
     *
     * (U1) Nothing escapes. Each entry catches Throwable around the user's call, and separately
     *      around the report of what it threw: a report made with the stack nearly exhausted (a
     *      StackOverflowError) may fail in turn, and is then dropped rather than thrown.
     * (U2) A failure of an operation's own code is reported once: its owner counts it and hands
     *      it to its Failures (the process-wide handler for an operation never submitted); the
     *      seams report a failure of their own by logging it.
     * (U3) While user code runs, the thread's InProgress counts it, so that a close called from
     *      it never waits (CloseOnce): the thread may be one that the close would wait for. The
     *      user's expiration executor and task error handler count too: the driver calls them.
     * (U4) The tenant function is asked before anything is taken; what it throws fails the
     *      submission that asked, as a key's failing hashCode does, and nothing is held.
     * The keys' hashCode and equals are called by the watch lists' maps, as any JDK map calls them.
     */

    /** Which callback failed, as {@code OperationErrorHandler.Callback}'s ordinals. */
    public static final int TRY_COMPLETE = 0;
    /** See TRY_COMPLETE. */
    public static final int ON_COMPLETE = 1;
    /** See TRY_COMPLETE. */
    public static final int ON_EXPIRATION = 2;
    /** See TRY_COMPLETE. */
    public static final int ON_CANCEL = 3;
    static final int CALLBACKS = 4;

    /** What {@link #nanoTime} returns when the clock failed. */
    static final long NO_TIME = Long.MIN_VALUE;

    /** The logger of the failures contained here: named after the purgatory, as it always was. */
    public static final String LOGGER = "io.purgatory.DelayedOperationPurgatory";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private static final String[] CALLBACK_NAMES = {"tryComplete", "onComplete", "onExpiration", "onCancel"};

    /** Where failures of operations never submitted go: the process-wide handler, once installed. */
    private static volatile Failures unsubmitted = (purgatory, op, callback, error) ->
            logFailure(purgatory, op, CALLBACK_NAMES[callback], error);

    /** Where the failures of an operation's own code go: its purgatory's error handler. */
    @FunctionalInterface
    public interface Failures {
        /** {@code callback} of {@code op} in {@code purgatory} threw {@code error}. */
        void failed(String purgatory, Operation op, int callback, Throwable error);
    }

    /** Watches each wait of a purgatory (its WaitObserver). */
    public interface Observer {
        /** A wait starts; returns the handle {@link #ended} will get, or null to leave it unobserved. */
        Object started(String purgatory, Object[] keys, long timeoutMs);

        /** The wait of {@code handle} ended as {@code end} (WaitOwner's codes); a failed submission's error. */
        void ended(Object handle, Operation op, int end, Throwable failure);
    }

    /** Where a purgatory's durations go (its MetricsRecorder). */
    public interface Recorder {
        /** A watched operation settled with {@code outcome} after {@code watchedNanos}. */
        void recordSettled(int outcome, long watchedNanos);

        /** An expiry {@code latenessNanos} after its deadline. */
        void recordLateness(long latenessNanos);

        /** The purgatory closed. */
        void close();
    }

    /** Told of each event of keyed waits that found no wait (its UnansweredEventListener). */
    @FunctionalInterface
    public interface EventListener {
        /** {@code value} for {@code key} answered no wait; {@code late} if a wait on its key ended just before. */
        void unanswered(String purgatory, Object key, Object value, boolean late);
    }

    private UserCode() {
    }

    /**
     * Runs {@code callback} of {@code op} (TRY_COMPLETE, ON_COMPLETE, ON_EXPIRATION or ON_CANCEL);
     * what it throws is reported, and a try that threw counts as "not yet" (U1, U2).
     * {@code progress} is the current thread's: the caller's, so a call looks up no thread-local.
     */
    static void call(Operation op, int callback, InProgress progress) {
        progress.userCode++;
        try {
            switch (callback) {
                case TRY_COMPLETE -> op.tryComplete();
                case ON_COMPLETE -> op.onComplete();
                case ON_EXPIRATION -> op.onExpiration();
                default -> op.onCancel();
            }
        } catch (Throwable error) {
            failed(op, callback, error);
        } finally {
            progress.userCode--;
        }
    }

    /** Whether {@code predicate} accepts {@code value} for {@code op}; one that throws rejects it (U2). */
    public static <V> boolean test(Predicate<? super V> predicate, V value, Operation op) {
        InProgress progress = enter();
        try {
            return predicate.test(value);
        } catch (Throwable error) {
            failed(op, TRY_COMPLETE, error);
            return false;
        } finally {
            progress.userCode--;
        }
    }

    /** Runs a call into user code that returns nothing; what it throws is logged as {@code what} (U1). */
    static void run(Runnable call, String purgatory, String what) {
        InProgress progress = enter();
        try {
            call.run();
        } catch (Throwable error) {
            log(purgatory, what, error);
        } finally {
            progress.userCode--;
        }
    }

    /**
     * {@code executor}, given by the user to a timer the library drives, as user code (U3): a close
     * called from its {@code execute} never waits. What it throws is the timer's to handle (a refusal).
     */
    static Executor asUserCode(Executor executor) {
        return command -> {
            InProgress progress = enter();
            try {
                executor.execute(command);
            } finally {
                progress.userCode--;
            }
        };
    }

    /** {@code handler}, given by the user to a timer the library drives, as user code (U3); the timer contains it. */
    static TaskErrorHandler asUserCode(TaskErrorHandler handler) {
        return (task, error) -> {
            InProgress progress = enter();
            try {
                handler.onError(task, error);
            } finally {
                progress.userCode--;
            }
        };
    }

    /** {@code observer}'s handle for a wait that starts; null if it threw (logged, U1). */
    static Object started(Observer observer, String purgatory, Object[] keys, long timeoutMs) {
        InProgress progress = enter();
        try {
            return observer.started(purgatory, keys, timeoutMs);
        } catch (Throwable error) {
            log(purgatory, "its WaitObserver threw when a wait started; the wait goes on unobserved", error);
            return null;
        } finally {
            progress.userCode--;
        }
    }

    /** Tells {@code observer} a wait ended; a failure is logged (U1). */
    static void ended(Observer observer, Object handle, Operation op, int end, Throwable failure, String purgatory) {
        InProgress progress = enter();
        try {
            observer.ended(handle, op, end, failure);
        } catch (Throwable error) {
            log(purgatory, "its WaitObserver threw when a wait ended; the wait ended regardless", error);
        } finally {
            progress.userCode--;
        }
    }

    /** Records a settle with {@code recorder}, and its lateness if not negative; a failure is logged (U1). */
    static void recordSettled(Recorder recorder, int outcome, long waitedNanos, long latenessNanos, String purgatory) {
        InProgress progress = enter();
        try {
            recorder.recordSettled(outcome, waitedNanos);
            if (latenessNanos >= 0) {
                recorder.recordLateness(latenessNanos);
            }
        } catch (Throwable error) {
            log(purgatory, "its MetricsRecorder threw; the operation settled regardless", error);
        } finally {
            progress.userCode--;
        }
    }

    /** What {@code renderer} makes of {@code value}; {@code "?"} if it threw or gave null (logged, U1). */
    public static String render(Function<Object, String> renderer, Object value, String purgatory) {
        InProgress progress = enter();
        try {
            String shown = renderer.apply(value);
            return shown != null ? shown : "?";
        } catch (Throwable error) {
            log(purgatory, "its KeyRenderer threw; the value shows as ?", error);
            return "?";
        } finally {
            progress.userCode--;
        }
    }

    /**
     * The tenant {@code tenantOf} gives {@code op}, on {@code firstKey} first (U4).
     *
     * @throws IllegalArgumentException carrying what it threw as its cause
     */
    static Object tenantOf(BiFunction<Operation, Object, Object> tenantOf, Operation op, Object firstKey) {
        InProgress progress = enter();
        try {
            return tenantOf.apply(op, firstKey);
        } catch (Throwable error) {
            // named by its class: its message is user code too, and may throw
            throw new IllegalArgumentException("the tenant function threw " + error.getClass().getName() + " for "
                    + op.getClass().getName() + "; the operation was not submitted", error);
        } finally {
            progress.userCode--;
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

    /**
     * Hands {@code error}, thrown by {@code callback} of {@code op}, to {@code failures}; one that
     * throws is logged with the original attached as suppressed, unless it threw that very
     * failure (U1, U2). Never throws.
     */
    static void report(Failures failures, String purgatory, Operation op, int callback, Throwable error) {
        InProgress progress = enter();
        try {
            failures.failed(purgatory, op, callback, error);
        } catch (Throwable handlerError) {
            if (handlerError != error) {
                handlerError.addSuppressed(error);
            }
            log(purgatory, "its error handler threw while handling a failure of " + CALLBACK_NAMES[callback],
                    handlerError);
        } finally {
            progress.userCode--;
        }
    }

    /** Makes {@code failures} the receiver of failures of operations never submitted (the process-wide handler). */
    public static void reportUnsubmittedTo(Failures failures) {
        unsubmitted = failures;
    }

    /** True iff the current thread is inside user code the library called (U3). */
    static boolean isRunning() {
        return InProgress.current().userCode > 0;
    }

    /** Logs that {@code callback} of {@code op} threw: the logging handler's line. */
    public static void logFailure(String purgatory, Object op, String callback, Throwable error) {
        LOG.error("Purgatory '{}': {} of {} threw", purgatory, callback, op, error);
    }

    /** Logs a failure of user code the library has contained. Never throws (U1). */
    public static void log(String purgatory, String what, Throwable error) {
        try {
            LOG.error("Purgatory '{}': {}", purgatory, what, error);
        } catch (Throwable loggingFailed) {
            // (U1): nothing is left to tell it to
        }
    }

    /** The current thread's InProgress, counting one more call into user code (U3): the caller uncounts it. */
    private static InProgress enter() {
        InProgress progress = InProgress.current();
        progress.userCode++;
        return progress;
    }

    /** Counts and reports a failure of {@code op}'s own code (U2); never throws (U1). */
    private static void failed(Operation op, int callback, Throwable error) {
        try {
            Owner owner = op.owner;
            if (owner != null) {
                owner.failed(op, callback, error);
            } else {
                report(unsubmitted, "(none)", op, callback, error);
            }
        } catch (Throwable reportFailed) {
            // (U1): the stack ran out while reporting; the failure is dropped, never thrown
        }
    }
}
