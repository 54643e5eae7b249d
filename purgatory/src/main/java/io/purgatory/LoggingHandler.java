package io.purgatory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default {@link OperationErrorHandler}. */
enum LoggingHandler implements OperationErrorHandler {
    INSTANCE;

    /**
     * Its logger, and that of every failure the library contains: named after
     * DelayedOperationPurgatory, as it always was, so logging configurations keep working.
     */
    static final String LOGGER = "io.purgatory.DelayedOperationPurgatory";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    @Override
    public void onError(String purgatory, DelayedOperation operation, Callback callback, Throwable error) {
        LOG.error("Purgatory '{}': {} of {} threw", purgatory, callback.methodName(), operation, error);
    }
}
