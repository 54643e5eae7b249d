package io.purgatory;

import java.util.concurrent.TimeoutException;

/**
 * How a {@link KeyedWaits} wait without a fallback ends when no event answered it: at its timeout,
 * or, with the default close policy, when the waits closed ({@link #closed()}), so that a server
 * can tell "no event yet" (say, HTTP 204) from "shutting down" (503). It carries no stack trace:
 * it is made on a timer thread, and timeouts are common.
 */
public final class WaitTimeoutException extends TimeoutException {

    private static final long serialVersionUID = 1L;

    private final boolean closed;

    WaitTimeoutException(String message, boolean closed) {
        super(message);
        this.closed = closed;
    }

    /** True iff the waits were closed before an event answered the wait (not its own timeout). */
    public boolean closed() {
        return closed;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
