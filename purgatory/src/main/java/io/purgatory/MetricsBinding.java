package io.purgatory;

import io.purgatory.timer.Clock;
import io.purgatory.timer.Timer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A purgatory's binding to a metrics system: bound at most once, closed once, and what it records
 * as operations settle (time watched by outcome, expiry lateness). Every call into the recorder
 * or the clock goes through {@link UserCode}, so a failing one never disturbs a settle.
 */
final class MetricsBinding {

    private final String name;
    private final PurgatoryCounters counters;
    private final Clock clock;
    /** Null until bound, and again once closed; written by the engine under its close lock. */
    private volatile MetricsRecorder recorder;
    /** True while a factory creates the recorder: a bind from inside it is refused. Under the close lock. */
    private boolean binding;

    MetricsBinding(String name, PurgatoryCounters counters, Clock clock) {
        this.name = name;
        this.counters = counters;
        this.clock = clock;
    }

    boolean isBound() {
        return recorder != null;
    }

    /** The time an operation watched now starts from, or {@link UserCode#NO_TIME} if the clock failed. */
    long now() {
        return UserCode.nanoTime(clock, name);
    }

    /**
     * Binds with {@code factory}, reading {@code events} too if not null; the engine's close lock
     * is held. Whatever the factory throws reaches the caller, and nothing is bound. A factory that
     * calls back into the purgatory cannot bind twice or bind a closed one: a bind from inside
     * it is refused, and a recorder created while the purgatory closed is closed and refused.
     *
     * @throws IllegalStateException if bound already, if called from inside a factory, or if
     *         {@code closed} says the purgatory closed meanwhile
     */
    void bind(MetricsRecorderFactory factory, EventReadings events, BooleanSupplier closed) {
        Objects.requireNonNull(factory, "factory");
        if (binding) {
            throw new IllegalStateException("metrics of purgatory '" + name + "' are being bound: a"
                    + " MetricsRecorderFactory must not bind them again from inside create");
        }
        if (recorder != null) {
            throw new IllegalStateException("metrics of purgatory '" + name + "' are already bound");
        }
        binding = true;
        MetricsRecorder created;
        try {
            created = factory.create(new MetricsSource(name, counters, events));
        } finally {
            binding = false;
        }
        Objects.requireNonNull(created, () -> "the MetricsRecorderFactory " + factory + " returned no recorder");
        if (closed.getAsBoolean()) {
            UserCode.closeRecorder(created, name);
            throw new IllegalStateException("purgatory '" + name + "' closed while its metrics were being bound");
        }
        recorder = created;
    }

    /** Records the settle of a watched operation of word {@code state}; lateness for an expiry not made by a close. */
    void record(DelayedOperation op, Outcome outcome, long state, boolean closing) {
        MetricsRecorder bound = recorder;
        if (bound == null) {
            return;
        }
        long now = now();
        long waited = now == UserCode.NO_TIME ? -1 : OperationState.watchedNanos(state, now);
        if (waited < 0) {
            return; // watched before the metrics were bound, or no clock reading: no start to measure from
        }
        long lateness = -1;
        if (outcome == Outcome.EXPIRED && !closing) { // expired by close() is not late
            long delayMs = Math.max(0L, Math.min(op.delayMs(), Timer.MAX_DELAY_MS));
            lateness = Math.max(0L, waited - TimeUnit.MILLISECONDS.toNanos(delayMs));
        }
        UserCode.recordSettled(bound, outcome, waited, lateness, name);
    }

    /** Closes the recorder, once; no record follows. */
    void close() {
        MetricsRecorder bound = recorder;
        if (bound != null) {
            recorder = null;
            UserCode.closeRecorder(bound, name);
        }
    }
}
