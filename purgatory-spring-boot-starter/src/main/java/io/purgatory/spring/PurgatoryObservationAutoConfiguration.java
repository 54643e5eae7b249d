package io.purgatory.spring;

import io.micrometer.observation.ObservationRegistry;
import io.purgatory.WaitObserver;
import io.purgatory.micrometer.MicrometerObservations;
import io.purgatory.micrometer.WaitObservationConvention;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Each wait an {@code Observation} in the context's {@link ObservationRegistry}: a
 * {@link MicrometerObservations} bean, which the {@link PurgatoryFactory} gives to every builder it
 * hands out (a span per wait with Micrometer Tracing, child of the request's). Only with the
 * Observation API and {@code purgatory-micrometer} on the class path, an
 * {@code ObservationRegistry} bean (Spring Boot's actuator makes one) and
 * {@code purgatory.observations.enabled} not false. A {@link WaitObservationConvention} bean
 * replaces the default convention; an application's own {@link WaitObserver} bean replaces it all.
 */
@AutoConfiguration(
        afterName = "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration")
@ConditionalOnClass({ObservationRegistry.class, MicrometerObservations.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "purgatory.observations", name = "enabled", matchIfMissing = true)
public final class PurgatoryObservationAutoConfiguration {

    /** Observations in {@code registry}, by the context's {@link WaitObservationConvention} if it has one. */
    @Bean
    @ConditionalOnMissingBean(WaitObserver.class)
    public MicrometerObservations purgatoryObservations(ObservationRegistry registry,
                                                        ObjectProvider<WaitObservationConvention> convention) {
        MicrometerObservations observations = MicrometerObservations.of(registry);
        WaitObservationConvention own = convention.getIfUnique();
        return own == null ? observations : observations.withConvention(own);
    }
}
