package io.purgatory.spring;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.purgatory.WaitObserver;
import io.purgatory.micrometer.MicrometerObservations;
import io.purgatory.micrometer.WaitObservationConvention;
import io.purgatory.micrometer.WaitTracingHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Each wait an {@code Observation} in the context's {@link ObservationRegistry}: a
 * {@link MicrometerObservations} bean, which the {@link PurgatoryFactory} gives to every builder it
 * hands out (a span per wait with Micrometer Tracing, child of the request's). Only with the
 * Observation API and {@code purgatory-micrometer} on the class path, an
 * {@code ObservationRegistry} bean (Spring Boot's actuator makes one) and
 * {@code purgatory.observations.enabled} not false. A {@link WaitObservationConvention} bean
 * replaces the default convention; an application's own {@link WaitObserver} bean replaces it all.
 * With a Micrometer Tracing {@code Tracer} bean, a {@link WaitTracingHandler} makes each wait's span,
 * linked to the span of the event that answered it ({@code purgatory.observations.link-answers}).
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration",
    "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
    "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
    "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
    "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration"})
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

    /**
     * Each wait's span made by a {@link WaitTracingHandler}: back-dated to the wait's start, a child
     * of the request's span, and linked to the span of the event that answered it from another
     * trace. Only with Micrometer Tracing on the class path, a {@code Tracer} bean (Spring Boot makes
     * one with a tracing bridge) and {@code purgatory.observations.link-answers} not false. Spring
     * Boot puts every tracing handler bean, in order, into one first-matching composite: this one
     * comes before its {@code DefaultTracingObservationHandler}, which otherwise takes the waits.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Tracer.class, WaitTracingHandler.class})
    @ConditionalOnBean(Tracer.class)
    @ConditionalOnProperty(prefix = "purgatory.observations", name = "link-answers", matchIfMissing = true)
    static class WaitTracing {

        /** Before Spring Boot's tracing handlers (its default one is ordered {@code LOWEST_PRECEDENCE - 1000}). */
        @Bean
        @Order(0)
        @ConditionalOnMissingBean
        WaitTracingHandler purgatoryWaitTracingHandler(Tracer tracer) {
            return new WaitTracingHandler(tracer);
        }
    }
}
