package io.purgatory.kafka;

import io.purgatory.timer.Clock;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A warning that repeats at most once per interval: the first occurrence is logged with its
 * error, later ones within the interval are counted and reported with the next line logged. The
 * line is at WARN, or at ERROR when the error is a {@link VirtualMachineError} (a stack overflow,
 * memory exhausted). Used by one thread (the feed's).
 */
final class ThrottledWarning {

    private final Logger log;
    private final Clock clock;
    private final long intervalNanos;
    private long lastNanos;
    private boolean logged;
    private long suppressed;

    ThrottledWarning(Logger log, Clock clock, long intervalNanos) {
        this.log = log;
        this.clock = clock;
        this.intervalNanos = intervalNanos;
    }

    /** Logs {@code message} and {@code error}, unless a line was logged within the interval. */
    void warn(String message, Throwable error) {
        long now = clock.nanoTime();
        if (logged && now - lastNanos < intervalNanos) {
            suppressed++;
            return;
        }
        Level level = error instanceof VirtualMachineError ? Level.ERROR : Level.WARN;
        if (suppressed > 0) {
            log.atLevel(level).setCause(error).log("{} ({} more like it since the last warning)", message, suppressed);
        } else {
            log.atLevel(level).setCause(error).log(message);
        }
        logged = true;
        lastNanos = now;
        suppressed = 0;
    }
}
