package io.purgatory.timer;

import java.util.Objects;

/** The checks of the arguments that are not a {@link TimerGeometry}: names and timeouts. */
final class TimerConfig {

    private TimerConfig() {
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        return name;
    }

    static long checkTimeoutMs(long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs must be >= 0: " + timeoutMs);
        }
        return timeoutMs;
    }
}
