package io.purgatory.timer;

import java.time.Duration;
import java.util.Objects;

/**
 * How a timer is set up, in one value that every builder takes (the timer's, the purgatory's,
 * the keyed waits', the runtime's): the duration of one bucket of the finest wheel,
 * {@code tickMs} (1 to {@link Timer#MAX_DELAY_MS}), the number of buckets per wheel,
 * {@code wheelSize} (2 to 65536), and the back-pressure bound ({@link Duration#ZERO}: none).
 * Immutable; every constructor and {@code with} method refuses a value out of bounds, naming the
 * setting and the value.
 *
 * <p>Back-pressure: while a {@link SystemTimer}'s expiries run more than {@code backPressure}
 * behind their deadlines, an add from a user's thread (a submission to a purgatory) waits, at
 * most that long per call, for them to catch up to half of it; the timer's own threads never
 * wait, and neither do the entries a library puts on the timer for itself. It blocks the adding
 * thread: never use it where that thread is an event loop.
 *
 * @param tickMs the duration of one bucket of the finest wheel, in ms
 * @param wheelSize the number of buckets per wheel
 * @param backPressure the lag beyond which adds wait; {@link Duration#ZERO} for none
 */
public record TimerSettings(long tickMs, int wheelSize, Duration backPressure) {

    /** The fewest buckets a wheel may have. */
    public static final int MIN_WHEEL_SIZE = 2;

    /** The most buckets a wheel may have. */
    public static final int MAX_WHEEL_SIZE = 1 << 16;

    /**
     * The default: a 1 ms tick and 1024 buckets per wheel, so that the finest wheel spans about a
     * second and shorter delays are never moved between wheels; no back-pressure.
     */
    public static final TimerSettings DEFAULT = new TimerSettings(1L, 1024, Duration.ZERO);

    /** Kafka's: a 1 ms tick, 20 buckets per wheel (the small wheel {@link ManualTimer} uses by default). */
    public static final TimerSettings KAFKA = new TimerSettings(1L, 20, Duration.ZERO);

    /**
     * @throws NullPointerException if {@code backPressure} is null
     * @throws IllegalArgumentException if a value is out of bounds
     */
    public TimerSettings {
        if (tickMs < 1 || tickMs > Timer.MAX_DELAY_MS) {
            throw new IllegalArgumentException("tickMs must be between 1 and " + Timer.MAX_DELAY_MS + ": " + tickMs);
        }
        if (wheelSize < MIN_WHEEL_SIZE || wheelSize > MAX_WHEEL_SIZE) {
            throw new IllegalArgumentException("wheelSize must be between " + MIN_WHEEL_SIZE + " and "
                    + MAX_WHEEL_SIZE + ": " + wheelSize);
        }
        Objects.requireNonNull(backPressure, "backPressure");
        if (backPressure.isNegative()) {
            throw new IllegalArgumentException("backPressure must be >= 0 (0: none): " + backPressure);
        }
    }

    /** These settings with a tick of {@code tickMs}. */
    public TimerSettings withTickMs(long tickMs) {
        return new TimerSettings(tickMs, wheelSize, backPressure);
    }

    /**
     * These settings with a tick of {@code tick}, in ms by the duration rule of {@link Timer}.
     *
     * @throws NullPointerException if {@code tick} is null
     */
    public TimerSettings withTick(Duration tick) {
        return withTickMs(TimerConfig.toMs(tick, "tick"));
    }

    /** These settings with {@code wheelSize} buckets per wheel. */
    public TimerSettings withWheelSize(int wheelSize) {
        return new TimerSettings(tickMs, wheelSize, backPressure);
    }

    /**
     * These settings with back-pressure at {@code lag} ({@link Duration#ZERO}: none), rounded up
     * to whole ms by the duration rule of {@link Timer}.
     *
     * @throws NullPointerException if {@code lag} is null
     * @throws IllegalArgumentException if {@code lag} is negative
     */
    public TimerSettings withBackPressure(Duration lag) {
        Objects.requireNonNull(lag, "backPressure");
        return new TimerSettings(tickMs, wheelSize, lag.isZero() || lag.isNegative() ? lag
                : Duration.ofMillis(TimerConfig.toMs(lag, "backPressure")));
    }

    /** True iff adds may wait for back-pressure. */
    public boolean hasBackPressure() {
        return !backPressure.isZero();
    }
}
