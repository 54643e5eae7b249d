package io.purgatory;

import java.time.Duration;
import java.util.Objects;

/** Durations as the timer's milliseconds: a part of a millisecond rounds up, and no Duration overflows. */
final class Durations {

    private Durations() {
    }

    /**
     * {@code duration} in whole milliseconds, rounded up (a 1 ns timeout is not "due now"), and
     * saturated at {@code Long.MIN_VALUE}/{@code Long.MAX_VALUE}, which the timer's delay rule
     * then treats as due now / never.
     *
     * @throws NullPointerException naming {@code argument} if {@code duration} is null
     */
    static long toMillis(Duration duration, String argument) {
        Objects.requireNonNull(duration, argument);
        long seconds = duration.getSeconds();
        if (seconds >= Long.MAX_VALUE / 1000 || seconds <= Long.MIN_VALUE / 1000) {
            return seconds > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return seconds * 1000 + (duration.getNano() + 999_999) / 1_000_000;
    }
}
