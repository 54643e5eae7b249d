package io.purgatory.timer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Clock} that only moves when told to: the time base of deterministic tests.
 *
 * <p>Thread-safe. Time never goes backwards: {@link #advance} rejects negative amounts. Moving
 * this clock does not by itself run anything; a {@link ManualTimer} runs due tasks when its
 * {@link ManualTimer#advanceClock(long)} is called.
 */
public final class ManualClock implements Clock {

    private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

    private final AtomicLong nanos;

    /** Creates a clock reading zero. */
    public ManualClock() {
        this(0L);
    }

    /**
     * Creates a clock with the given reading; any value is allowed, including values near
     * {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE} (readings wrap, as {@code System.nanoTime} may).
     */
    public ManualClock(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    /** Moves the clock forward by {@code amount} of {@code unit}; returns the new reading. */
    public long advance(long amount, TimeUnit unit) {
        if (amount < 0) {
            throw new IllegalArgumentException("amount must be >= 0: " + amount);
        }
        return nanos.addAndGet(unit.toNanos(amount));
    }

    /**
     * Moves the clock forward by {@code amount}, to the nanosecond (a clock reads nanoseconds, so
     * nothing is rounded); an amount beyond {@link Long#MAX_VALUE} ns saturates to it. Returns the
     * new reading.
     *
     * @throws NullPointerException if {@code amount} is null
     * @throws IllegalArgumentException if {@code amount} is negative
     */
    public long advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        if (amount.isNegative()) {
            throw new IllegalArgumentException("amount must be >= 0: " + amount);
        }
        return advance(amount.compareTo(MAX_NANOS) >= 0 ? Long.MAX_VALUE : amount.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Moves the clock forward by {@code millis} milliseconds; returns the new reading. */
    public long advanceMillis(long millis) {
        return advance(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString() {
        return "ManualClock[" + nanos.get() + "ns]";
    }
}
