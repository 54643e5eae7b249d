package io.purgatory.kafka;

import io.purgatory.timer.Clock;
import org.slf4j.Logger;

/**
 * A warning that repeats at most once per interval: the first occurrence is logged with its
 * error, later ones within the interval are counted and reported with the next line logged. Used
 * by one thread (the feed's).
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

    /** Logs {@code message} and {@code error} at WARN, unless a line was logged within the interval. */
    void warn(String message, Throwable error) {
        long now = clock.nanoTime();
        if (logged && now - lastNanos < intervalNanos) {
            suppressed++;
            return;
        }
        if (suppressed > 0) {
            log.warn("{} ({} more like it since the last warning)", message, suppressed, error);
        } else {
            log.warn(message, error);
        }
        logged = true;
        lastNanos = now;
        suppressed = 0;
    }
}
