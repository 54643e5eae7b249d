package io.purgatory.timer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the failures of timer tasks: a {@link TimerTask#run()} that threw, or a task the
 * executor refused (which the timer then runs on its own thread, so that it is not lost).
 *
 * <p>Called on the thread where the failure happened. A handler should not throw; if it does,
 * the timer logs that failure too and carries on.
 */
@FunctionalInterface
public interface TaskErrorHandler {

    /** Handles {@code error}, raised while running or dispatching {@code task}. */
    void onError(TimerEntry task, Throwable error);

    /** Returns the default handler: logs the failure at ERROR through slf4j. */
    static TaskErrorHandler logging() {
        return LoggingTaskErrorHandler.INSTANCE;
    }
}

/** The default {@link TaskErrorHandler}. */
enum LoggingTaskErrorHandler implements TaskErrorHandler {
    INSTANCE;

    private static final Logger LOG = LoggerFactory.getLogger(Timer.class);

    @Override
    public void onError(TimerEntry task, Throwable error) {
        LOG.error("Timer task {} failed", task, error);
    }
}
