package io.purgatory.spring;

import java.time.Clock;
import java.util.Set;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * With Spring Boot's actuator: the {@code purgatories} endpoint ({@link PurgatoriesEndpoint}; when
 * it is available, e.g. {@code management.endpoints.web.exposure.include=purgatories}) and the
 * {@code purgatories} health contributor (unless {@code management.health.purgatories.enabled} is
 * false), which reports a purgatory that rejects for capacity as {@code OUT_OF_SERVICE}, in the
 * {@code readiness} group when there is one ({@link PurgatoriesReadiness}). After Spring Boot's
 * probes: its post-processor of health groups, which creates that group, runs before ours.
 */
@AutoConfiguration(after = PurgatoryAutoConfiguration.class,
        afterName = "org.springframework.boot.actuate.autoconfigure.availability.AvailabilityProbesAutoConfiguration")
@ConditionalOnClass(name = {
    "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
    "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryActuatorAutoConfiguration {

    /** The {@code purgatories} endpoint. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public PurgatoriesEndpoint purgatoriesEndpoint(ConfigurableListableBeanFactory beanFactory) {
        return new PurgatoriesEndpoint(beanFactory);
    }

    /** The {@code purgatories} health contributor. */
    @Bean
    @ConditionalOnMissingBean(name = "purgatoriesHealthContributor")
    @ConditionalOnEnabledHealthIndicator("purgatories")
    PurgatoriesHealthContributor purgatoriesHealthContributor(ConfigurableListableBeanFactory beanFactory,
                                                              PurgatoryProperties properties) {
        return new PurgatoriesHealthContributor(beanFactory, properties.getHealth().getRejectionWindow(),
                Clock.systemUTC());
    }

    /** The contributor in the readiness group, unless the group's exclude property names it. */
    @Bean
    @ConditionalOnEnabledHealthIndicator("purgatories")
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthEndpointGroupsPostProcessor")
    PurgatoriesReadiness purgatoriesReadiness(Environment environment) {
        return new PurgatoriesReadiness(Binder.get(environment)
                .bind("management.endpoint.health.group.readiness.exclude", Bindable.setOf(String.class))
                .orElse(Set.of()));
    }
}
