package io.purgatory.spring;

import java.time.Clock;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With Spring Boot's actuator: the {@code purgatories} endpoint ({@link PurgatoriesEndpoint}; when
 * it is available, e.g. {@code management.endpoints.web.exposure.include=purgatories}) and the
 * {@code purgatories} health contributor (unless {@code management.health.purgatories.enabled} is
 * false), which reports a purgatory that rejects for capacity as {@code OUT_OF_SERVICE}.
 */
@AutoConfiguration(after = PurgatoryAutoConfiguration.class)
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
}
