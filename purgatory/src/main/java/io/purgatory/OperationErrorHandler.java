package io.purgatory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the exceptions thrown by operations' callbacks. The purgatory has already counted the
 * failure and carries on: a throwing {@code tryComplete} counts as "not yet"; a throwing
 * {@code onComplete} does not stop {@code onExpiration}; no library thread dies.
 *
 * <p>Called on the thread that ran the callback, with no purgatory lock held. A handler should
 * not throw; if it does, its failure is logged.
 */
@FunctionalInterface
public interface OperationErrorHandler {

    /** The callback that failed. */
    enum Callback {
        /** {@link DelayedOperation#tryComplete()}. */
        TRY_COMPLETE("tryComplete"),
        /** {@link DelayedOperation#onComplete()}. */
        ON_COMPLETE("onComplete"),
        /** {@link DelayedOperation#onExpiration()}. */
        ON_EXPIRATION("onExpiration"),
        /** {@link DelayedOperation#onCancel()}. */
        ON_CANCEL("onCancel");

        private final String methodName;

        Callback(String methodName) {
            this.methodName = methodName;
        }

        /** The name of the method, as in the source: {@code onComplete}. */
        public String methodName() {
            return methodName;
        }
    }

    /** Handles {@code error}, thrown by {@code callback} of {@code operation} in the named purgatory. */
    void onError(String purgatory, DelayedOperation operation, Callback callback, Throwable error);

    /** The default handler: logs at ERROR through slf4j. */
    static OperationErrorHandler logging() {
        return LoggingHandler.INSTANCE;
    }

    /** Calls {@code handler}, logging instead of throwing if the handler fails. */
    static void report(OperationErrorHandler handler, String purgatory, DelayedOperation operation,
                       Callback callback, Throwable error) {
        try {
            handler.onError(purgatory, operation, callback, error);
        } catch (Throwable handlerError) {
            handlerError.addSuppressed(error);
            LoggingHandler.INSTANCE.onError(purgatory, operation, callback, handlerError);
        }
    }
}

/** The default {@link OperationErrorHandler}. */
enum LoggingHandler implements OperationErrorHandler {
    INSTANCE;

    private static final Logger LOG = LoggerFactory.getLogger(DelayedOperationPurgatory.class);

    @Override
    public void onError(String purgatory, DelayedOperation operation, Callback callback, Throwable error) {
        LOG.error("Purgatory '{}': {} of {} threw", purgatory, callback.methodName(), operation, error);
    }
}
