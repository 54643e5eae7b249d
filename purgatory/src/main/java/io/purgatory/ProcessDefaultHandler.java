package io.purgatory;

import java.util.concurrent.atomic.AtomicReference;

/** The process-wide {@link OperationErrorHandler}: a forwarder to whichever handler is set now. */
final class ProcessDefaultHandler implements OperationErrorHandler {
    static final ProcessDefaultHandler INSTANCE = new ProcessDefaultHandler();

    final AtomicReference<OperationErrorHandler> delegate = new AtomicReference<>(LoggingHandler.INSTANCE);

    private ProcessDefaultHandler() {
    }

    @Override
    public void onError(String purgatory, DelayedOperation operation, Callback callback, Throwable error) {
        delegate.get().onError(purgatory, operation, callback, error);
    }
}
