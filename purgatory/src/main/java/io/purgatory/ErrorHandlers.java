package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.internal.UserCode;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The two handlers {@link OperationErrorHandler} names, and the one bridge from a handler to the
 * engine's {@link UserCode.Failures}.
 *
 * <p>Failures of operations never submitted go to the process default from the moment this class
 * is loaded (by the first purgatory built, or the first call of {@code processDefault} or
 * {@code setProcessDefault}); before that, the engine logs them with the logging handler's line,
 * which is what the process default does until a handler is set.
 */
final class ErrorHandlers {

    private static final Callback[] CALLBACKS = Callback.values();

    static final OperationErrorHandler LOGGING = (purgatory, operation, callback, error) ->
            UserCode.logFailure(purgatory, operation, callback.methodName(), error);

    /** The handler {@link #PROCESS_DEFAULT} passes each failure to. */
    static final AtomicReference<OperationErrorHandler> PROCESS_DELEGATE = new AtomicReference<>(LOGGING);

    static final OperationErrorHandler PROCESS_DEFAULT = (purgatory, operation, callback, error) ->
            PROCESS_DELEGATE.get().onError(purgatory, operation, callback, error);

    static {
        UserCode.reportUnsubmittedTo(failures(PROCESS_DEFAULT));
    }

    private ErrorHandlers() {
    }

    static UserCode.Failures failures(OperationErrorHandler handler) {
        return (purgatory, op, callback, error) -> handler.onError(purgatory, (DelayedOperation) op,
                CALLBACKS[callback], error);
    }
}
