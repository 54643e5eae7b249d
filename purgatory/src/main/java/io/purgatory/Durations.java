package io.purgatory;

import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.Objects;

/** Durations as the timer's milliseconds, by {@link Timer#toMs(Duration)}, with the argument named when null. */
final class Durations {

    private Durations() {
    }

    /**
     * {@code duration} in milliseconds by the timer's rule (a fraction rounds up; no Duration
     * overflows).
     *
     * @throws NullPointerException naming {@code argument} if {@code duration} is null
     */
    static long toMillis(Duration duration, String argument) {
        return Timer.toMs(Objects.requireNonNull(duration, argument));
    }
}
