package io.purgatory.internal;

import io.purgatory.timer.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A purgatory's binding to a metrics system: bound at most once, closed once, and what it records
 * as operations settle (time watched by outcome, expiry lateness). Every call into the recorder
 * or the clock goes through {@link UserCode}, so a failing one never disturbs a settle.
 */
final class MetricsBinding {

    private final String name;
    private final Clock clock;
    /** Null until bound, and again once closed; bound under the close's lock. */
    private final AtomicReference<UserCode.Recorder> recorder = new AtomicReference<>();
    /**
     * When the recorder was bound: operations watched before that clock reading are not timed.
     * Written before the recorder.
     */
    private long boundAtNanos;
    /** True while a factory creates the recorder: another bind meanwhile is refused. Under the close's lock. */
    private boolean binding;

    /**
     * The clock's reading when the engine was built: now() counts from it, so the engine's times
     * (watch times, keys' activations, ages) never pass the readings' wrap at Long.MAX_VALUE and
     * compare as plain numbers (0 if the clock threw then).
     */
    private final long epochNanos;

    MetricsBinding(String name, Clock clock) {
        this.name = name;
        this.clock = clock;
        long first = UserCode.nanoTime(clock, name);
        this.epochNanos = first == UserCode.NO_TIME ? 0L : first;
    }

    boolean isBound() {
        return recorder.get() != null;
    }

    /**
     * The time an operation watched now starts from, in ns since the engine was built, or
     * {@link UserCode#NO_TIME} if the clock failed.
     */
    long now() {
        long reading = UserCode.nanoTime(clock, name);
        return reading == UserCode.NO_TIME ? UserCode.NO_TIME : Math.max(reading - epochNanos, UserCode.NO_TIME + 1);
    }

    /** The clock's own reading at {@code now}, a time of {@link #now()} (for the timer, TimerEngine E4). */
    long reading(long now) {
        return now + epochNanos;
    }

    /**
     * The first step of a bind, under the close's lock: refuses a second bind, and one from inside
     * a factory.
     *
     * @throws IllegalStateException if bound already, or called from inside a factory
     */
    void beginBind() {
        if (binding) {
            throw new IllegalStateException("metrics of purgatory '" + name + "' are being bound (by another"
                    + " call, or this is a MetricsRecorderFactory binding them again from inside create)");
        }
        if (recorder.get() != null) {
            throw new IllegalStateException("metrics of purgatory '" + name + "' are already bound");
        }
        binding = true;
    }

    /**
     * The last step, under the close's lock again, after the factory created the recorder with no
     * lock held (so that a close need not wait for it): binds {@code created} (null: the factory
     * failed), unless the purgatory began to close meanwhile: then the recorder is closed and the
     * bind refused.
     *
     * @throws IllegalStateException if the purgatory closed while the recorder was created
     */
    void endBind(UserCode.Recorder created, boolean closed) {
        binding = false;
        if (created == null) {
            return;
        }
        if (closed) {
            UserCode.run(created::close, name, "its MetricsRecorder threw on close; the purgatory closed regardless");
            throw new IllegalStateException("purgatory '" + name + "' closed while its metrics were being bound");
        }
        boundAtNanos = now();
        recorder.set(created);
    }

    /** Records the settle of a watched operation of word {@code state}; lateness for an expiry not made by a close. */
    void record(Operation op, int outcome, long state, boolean closing) {
        UserCode.Recorder bound = recorder.get();
        if (bound == null) {
            return;
        }
        long now = now();
        long waited = now == UserCode.NO_TIME ? -1 : OperationState.watchedNanos(state, now);
        if (waited < 0 || waited > now - boundAtNanos) {
            return; // watched before the metrics were bound, or no clock reading: no start to measure from
        }
        long lateness = -1;
        if (outcome == OperationState.EXPIRED && !closing) { // expired by close() is not late
            long delayMs = Math.max(0L, Math.min(op.delayMs(), io.purgatory.timer.Timer.MAX_DELAY_MS));
            lateness = Math.max(0L, waited - TimeUnit.MILLISECONDS.toNanos(delayMs));
        }
        UserCode.recordSettled(bound, outcome, waited, lateness, name);
    }

    /** Closes the recorder, once, whoever else closes it meanwhile; no record follows. */
    void close() {
        UserCode.Recorder bound = recorder.getAndSet(null);
        if (bound != null) {
            UserCode.run(bound::close, name, "its MetricsRecorder threw on close; the purgatory closed regardless");
        }
    }
}
