package io.purgatory.micrometer;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.purgatory.WaitObserver;
import io.purgatory.WaitOutcome;
import io.purgatory.WaitStart;
import java.util.Objects;

/**
 * Makes each wait a Micrometer {@link Observation} in an {@link ObservationRegistry} of yours:
 * {@code KeyedWaits.builder("payments").observer(MicrometerObservations.of(observationRegistry))},
 * the same on a {@code DelayedOperationPurgatory}'s builder. The observation ({@value
 * DefaultWaitObservationConvention#NAME}, see {@link DefaultWaitObservationConvention}) starts on
 * the thread that makes the wait, as a child of the observation current there (the HTTP request's,
 * say), and stops on the thread that ends it, with its outcome, and with the error that failed it.
 * With Micrometer Tracing it is a span; with a meter handler, a timer. With a no-op registry, or
 * one whose predicates turn the name off, nothing is made for a wait. Immutable and thread-safe.
 */
public final class MicrometerObservations implements WaitObserver {

    /*
     * Implementation notes.
     *
     * The handle the purgatory keeps for a wait is the started Observation itself: ended() reads
     * its context back from it, so nothing else is kept per wait.
     *
     * (M10) Each observation started here is stopped exactly once: the purgatory calls ended()
     *       once for each non-null handle started() returned, so ended() stops without a guard
     *       of its own, and nothing else stops it. It sets the outcome before stop(), which is
     *       where the convention's low-cardinality values are read again.
     * (M11) A no-op registry costs the purgatory no handle: started() returns null before any
     *       context or supplier is made, and the purgatory then ends nothing. An observation the
     *       registry's predicates turn off (Observation.NOOP) also gives null.
     * (M12) The parent is the observation current on the submitting thread, taken by
     *       Observation.createNotStarted. No scope is opened: the wait outlives the call that
     *       made it and ends on another thread, and a scope left open would be the parent of
     *       whatever that thread did next.
     * (M13) A handler that throws on start stops the observation's start part way: the handlers
     *       before it have started, and nothing would stop them, since the purgatory gets no
     *       handle. started() ends the observation (outcome FAILED, the error attached), then
     *       rethrows, so the purgatory reports the failure and leaves the wait unobserved.
     * (M14) An observation ends in one place, end(): whatever a handler throws in error() or in
     *       stop(), stop() is still called, and a long task sample that a handler left running
     *       (Micrometer calls the handlers' onStop in one loop, so one that throws keeps those
     *       after it from stopping) is stopped, so the active count comes back. The first
     *       failure is rethrown for the purgatory to report.
     */

    private static final DefaultWaitObservationConvention DEFAULT = new DefaultWaitObservationConvention();

    private final ObservationRegistry registry;
    /** Replaces the default and the registry's conventions when not null. */
    private final WaitObservationConvention convention;

    private MicrometerObservations(ObservationRegistry registry, WaitObservationConvention convention) {
        this.registry = registry;
        this.convention = convention;
    }

    /**
     * An observation per wait in {@code registry}, by the registry's {@link WaitObservationConvention}
     * if it has one, else by the {@link DefaultWaitObservationConvention}.
     *
     * @throws NullPointerException if {@code registry} is null
     */
    public static MicrometerObservations of(ObservationRegistry registry) {
        return new MicrometerObservations(Objects.requireNonNull(registry, "registry"), null);
    }

    /**
     * The same, by {@code convention} (its name and key values) instead.
     *
     * @throws NullPointerException if {@code convention} is null
     */
    public MicrometerObservations withConvention(WaitObservationConvention convention) {
        return new MicrometerObservations(registry, Objects.requireNonNull(convention, "convention"));
    }

    /** The registry the observations are made in. */
    public ObservationRegistry registry() {
        return registry;
    }

    /**
     * Starts the wait's observation, a child of the observation current on this thread, and
     * returns it; null if the registry observes nothing.
     */
    @Override
    public Object started(WaitStart start) {
        if (registry.isNoop()) {
            return null; // (M11)
        }
        Observation observation = Observation.createNotStarted(convention, DEFAULT, // its parent (M12)
                () -> new WaitObservationContext(start), registry);
        if (observation.isNoop()) {
            return null;
        }
        try {
            return observation.start();
        } catch (RuntimeException | Error startFailure) { // a handler threw: end those that started (M13)
            try {
                end(observation, WaitOutcome.FAILED, startFailure);
            } catch (RuntimeException | Error endFailure) {
                if (endFailure != startFailure) {
                    startFailure.addSuppressed(endFailure);
                }
            }
            throw startFailure;
        }
    }

    /** Stops the wait's observation with its outcome, and with its error if it failed (M10, M14). */
    @Override
    public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
        end((Observation) handle, outcome, failure); // stopped once (M10)
    }

    /** Ends {@code observation}: its outcome, its error if any, and its stop, whatever a handler throws (M14). */
    private static void end(Observation observation, WaitOutcome outcome, Throwable failure) {
        Observation.Context context = observation.getContext();
        ((WaitObservationContext) context).setOutcome(outcome);
        Throwable first = null;
        if (failure != null) {
            try {
                observation.error(failure);
            } catch (RuntimeException | Error errorFailure) {
                first = errorFailure;
            }
        }
        try {
            observation.stop();
        } catch (RuntimeException | Error stopFailure) {
            first = first == null ? stopFailure : withSuppressed(first, stopFailure);
            LongTaskTimer.Sample active = context.get(LongTaskTimer.Sample.class); // a meter handler's, not stopped
            if (active != null) {
                active.stop();
            }
        }
        if (first instanceof Error error) {
            throw error;
        }
        if (first != null) {
            throw (RuntimeException) first;
        }
    }

    private static Throwable withSuppressed(Throwable first, Throwable next) {
        if (next != first) {
            first.addSuppressed(next);
        }
        return first;
    }

    @Override
    public String toString() {
        return "MicrometerObservations[" + registry.getClass().getSimpleName()
                + (convention == null ? "" : ", " + convention.getClass().getSimpleName()) + "]";
    }
}
