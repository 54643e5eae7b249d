package io.purgatory.timer;

/**
 * The shape of a timing wheel: the duration of one bucket of the finest wheel, {@code tickMs}
 * (1 to {@link Timer#MAX_DELAY_MS}), and the number of buckets per wheel, {@code wheelSize}
 * (2 to 65536). Immutable; the constructor refuses values out of those bounds, naming the
 * argument and the value. Every timer (and anything built on one) validates through it.
 *
 * @param tickMs the duration of one bucket of the finest wheel, in ms
 * @param wheelSize the number of buckets per wheel
 */
public record TimerGeometry(long tickMs, int wheelSize) {

    /** The fewest buckets a wheel may have. */
    public static final int MIN_WHEEL_SIZE = 2;

    /** The most buckets a wheel may have. */
    public static final int MAX_WHEEL_SIZE = 1 << 16;

    /**
     * The default: a 1 ms tick and 1024 buckets per wheel, so that the finest wheel spans about a
     * second and shorter delays are never moved between wheels.
     */
    public static final TimerGeometry DEFAULT = new TimerGeometry(1L, 1024);

    /** Kafka's defaults: a 1 ms tick, 20 buckets per wheel (the small wheel {@link ManualTimer} uses by default). */
    public static final TimerGeometry KAFKA = new TimerGeometry(1L, 20);

    /**
     * @throws IllegalArgumentException if {@code tickMs} or {@code wheelSize} is out of bounds
     */
    public TimerGeometry {
        if (tickMs < 1 || tickMs > Timer.MAX_DELAY_MS) {
            throw new IllegalArgumentException("tickMs must be between 1 and " + Timer.MAX_DELAY_MS + ": " + tickMs);
        }
        if (wheelSize < MIN_WHEEL_SIZE || wheelSize > MAX_WHEEL_SIZE) {
            throw new IllegalArgumentException("wheelSize must be between " + MIN_WHEEL_SIZE + " and "
                    + MAX_WHEEL_SIZE + ": " + wheelSize);
        }
    }

    /** This geometry with {@code tickMs} instead. */
    public TimerGeometry withTickMs(long tickMs) {
        return new TimerGeometry(tickMs, wheelSize);
    }

    /** This geometry with {@code wheelSize} instead. */
    public TimerGeometry withWheelSize(int wheelSize) {
        return new TimerGeometry(tickMs, wheelSize);
    }
}
