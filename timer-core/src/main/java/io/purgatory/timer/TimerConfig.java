package io.purgatory.timer;

import java.util.Objects;

/** Argument checks shared by the timers' constructors and builders. */
final class TimerConfig {

    static final long DEFAULT_TICK_MS = 1L;
    static final int DEFAULT_WHEEL_SIZE = 20;
    static final int MAX_WHEEL_SIZE = 1 << 16;

    private TimerConfig() {
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        return name;
    }

    static long checkTickMs(long tickMs) {
        if (tickMs < 1 || tickMs > Timer.MAX_DELAY_MS) {
            throw new IllegalArgumentException("tickMs must be between 1 and " + Timer.MAX_DELAY_MS + ": " + tickMs);
        }
        return tickMs;
    }

    static int checkWheelSize(int wheelSize) {
        if (wheelSize < 2 || wheelSize > MAX_WHEEL_SIZE) {
            throw new IllegalArgumentException("wheelSize must be between 2 and " + MAX_WHEEL_SIZE + ": " + wheelSize);
        }
        return wheelSize;
    }

    static long checkTimeoutMs(long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs must be >= 0: " + timeoutMs);
        }
        return timeoutMs;
    }
}
