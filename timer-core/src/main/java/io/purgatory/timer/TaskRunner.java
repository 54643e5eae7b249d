package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs a timer's due tasks guarded: whatever a task throws goes to the timer's
 * {@link TaskErrorHandler} and is counted, and never reaches the thread that ran it. Thread-safe.
 */
final class TaskRunner {

    private final TaskErrorHandler errorHandler;
    private final LongAdder failures = new LongAdder();

    TaskRunner(TaskErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /** Runs {@code task}; if it throws (an Error too), counts and reports that. Never throws. */
    void run(TimerEntry task) {
        try {
            task.run();
        } catch (Throwable error) {
            fail(task, error);
        }
    }

    /** Counts a failure of {@code task} (a run that threw, a refused hand-off) and reports it. Never throws. */
    void fail(TimerEntry task, Throwable error) {
        failures.increment();
        try {
            errorHandler.onError(task, error);
        } catch (Throwable handlerError) {
            try {
                if (handlerError != error) {
                    handlerError.addSuppressed(error);
                }
                TaskErrorHandler.logging().onError(task, handlerError);
            } catch (Throwable ignored) {
                // even logging failed (out of memory?): the failure is counted, nothing more can be told
            }
        }
    }

    /** The number of failures counted so far. */
    long failures() {
        return failures.sum();
    }
}
