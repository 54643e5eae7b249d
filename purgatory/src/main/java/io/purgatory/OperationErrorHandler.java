package io.purgatory;

/**
 * Receives the exceptions thrown by operations' callbacks. The purgatory has already counted the
 * failure and carries on: a throwing {@code tryComplete} counts as "not yet"; a throwing
 * {@code onComplete} does not stop {@code onExpiration}; no library thread dies.
 *
 * <p>Called on the thread that ran the callback, with no purgatory lock held. A handler should
 * not throw; if it does (even by rethrowing the failure it was given), its failure is logged, with
 * the original attached, and the purgatory carries on unharmed.
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

    /**
     * The handler that logs at ERROR through SLF4J. Without an SLF4J provider on the class path,
     * SLF4J drops every log line (it says so once, on standard error): set a handler of your own,
     * here or per builder, if your application binds no provider.
     */
    static OperationErrorHandler logging() {
        return ErrorHandlers.LOGGING;
    }

    /**
     * The builders' default handler: it passes each failure to the handler set by
     * {@link #setProcessDefault} when the failure happens, so one call covers every purgatory and
     * keyed wait of the process, those built before it too. Until then it logs ({@link #logging()}).
     */
    static OperationErrorHandler processDefault() {
        return ErrorHandlers.PROCESS_DEFAULT;
    }

    /**
     * Sets the handler every purgatory built without an {@code errorHandler} of its own reports
     * to, and returns the one it replaces.
     *
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalArgumentException if {@code handler} is {@link #processDefault()} itself
     */
    static OperationErrorHandler setProcessDefault(OperationErrorHandler handler) {
        java.util.Objects.requireNonNull(handler, "handler");
        if (handler == ErrorHandlers.PROCESS_DEFAULT) {
            throw new IllegalArgumentException("handler: processDefault() would report to itself forever");
        }
        return ErrorHandlers.PROCESS_DELEGATE.getAndSet(handler);
    }

}
