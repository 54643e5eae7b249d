package io.purgatory.micrometer;

import io.micrometer.observation.Observation;
import io.purgatory.WaitOutcome;
import io.purgatory.WaitStart;
import java.util.List;
import java.util.Objects;

/**
 * The context of one wait's {@code purgatory.wait} observation, for {@link WaitObservationConvention}s:
 * the purgatory's name, the keys and the timeout the wait was made with, and, once it ended, its
 * {@link #outcome()}; what failed it is the context's {@code getError()}. Made on the thread that
 * submitted the wait and read on the one that ended it: actions of the submitting thread
 * happen-before the purgatory ends the wait on another.
 */
public final class WaitObservationContext extends Observation.Context {

    private final WaitStart start;
    private WaitOutcome outcome;

    /** The context of a wait that starts as {@code start} tells. */
    public WaitObservationContext(WaitStart start) {
        this.start = Objects.requireNonNull(start, "start");
    }

    /** The name of the purgatory (or keyed waits) the wait was made in: low cardinality. */
    public String purgatory() {
        return start.purgatory();
    }

    /** The keys the wait waits on, in the order given: high cardinality, never a metric tag. */
    public List<Object> keys() {
        return start.keys();
    }

    /** The wait's timeout, in ms. */
    public long timeoutMs() {
        return start.timeoutMs();
    }

    /** How the wait ended; null while it waits. */
    public WaitOutcome outcome() {
        return outcome;
    }

    /** Sets how the wait ended: {@link MicrometerObservations} does, just before it stops the observation. */
    public void setOutcome(WaitOutcome outcome) {
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }
}
