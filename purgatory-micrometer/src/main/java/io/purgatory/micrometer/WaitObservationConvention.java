package io.purgatory.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names a wait's observation and gives its key values. {@link DefaultWaitObservationConvention} is
 * the default; replace it with {@link MicrometerObservations#withConvention}, or in the registry,
 * with a {@code GlobalObservationConvention<WaitObservationContext>} given to
 * {@code observationConfig().observationConvention(...)} (which {@code withConvention} overrides).
 */
public interface WaitObservationConvention extends ObservationConvention<WaitObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof WaitObservationContext;
    }
}
