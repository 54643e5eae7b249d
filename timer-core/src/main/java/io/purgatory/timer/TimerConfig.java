package io.purgatory.timer;

import java.time.Duration;
import java.util.Objects;

/** The checks of the arguments that are not {@link TimerSettings}: names, timeouts, and the duration rule. */
final class TimerConfig {

    /** {@link Long#MAX_VALUE} / 1000: from this many seconds on, a duration saturates to Long.MAX_VALUE ms. */
    private static final long MAX_SECONDS = Long.MAX_VALUE / 1000;
    /** {@link Long#MIN_VALUE} / 1000: below this many seconds, a duration saturates to Long.MIN_VALUE ms. */
    private static final long MIN_SECONDS = Long.MIN_VALUE / 1000;
    private static final int NANOS_PER_MS = 1_000_000;

    private TimerConfig() {
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        return name;
    }

    /**
     * The duration rule of {@link Timer}: {@code duration} rounded up to whole ms, saturating.
     * A Duration is {@code seconds + nanos} with {@code 0 <= nanos < 10^9}, so the ceiling is
     * {@code seconds * 1000 + ceil(nanos / 10^6)}, which cannot overflow between the two bounds.
     *
     * @throws NullPointerException naming {@code argument} if {@code duration} is null
     */
    static long toMs(Duration duration, String argument) {
        Objects.requireNonNull(duration, argument);
        long seconds = duration.getSeconds();
        if (seconds >= MAX_SECONDS) {
            return Long.MAX_VALUE;
        }
        if (seconds < MIN_SECONDS) {
            return Long.MIN_VALUE;
        }
        return seconds * 1000 + (duration.getNano() + NANOS_PER_MS - 1) / NANOS_PER_MS;
    }

    /** A timeout of {@link Timer#advanceClock(Duration)}: not null, not negative; in ms by the duration rule. */
    static long checkTimeout(Duration timeout) {
        long timeoutMs = toMs(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
        }
        return timeoutMs;
    }

    static long checkTimeoutMs(long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs must be >= 0: " + timeoutMs);
        }
        return timeoutMs;
    }
}
