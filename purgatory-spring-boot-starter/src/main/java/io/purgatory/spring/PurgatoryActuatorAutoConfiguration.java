package io.purgatory.spring;

import io.purgatory.KeyRenderer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With Spring Boot's actuator: the {@code purgatories} endpoint ({@link PurgatoriesEndpoint}; when
 * it is available, e.g. {@code management.endpoints.web.exposure.include=purgatories}), its keys
 * shown by the application's {@link KeyRenderer} bean or by {@code purgatory.actuator.keys}. The health
 * contributors, whose API Spring Boot moved between generations, are each Boot line's own
 * auto-configuration (on Spring Boot 4: {@code io.purgatory.spring.boot4.PurgatoryHealthAutoConfiguration}).
 */
@AutoConfiguration(after = PurgatoryAutoConfiguration.class)
@ConditionalOnClass(name = {
    "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
    "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryActuatorAutoConfiguration {

    /**
     * The {@code purgatories} endpoint, showing keys and tenants with the application's
     * {@link KeyRenderer} bean if it defines one, else as {@code purgatory.actuator.keys} says.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public PurgatoriesEndpoint purgatoriesEndpoint(ConfigurableListableBeanFactory beanFactory,
                                                   PurgatoryProperties properties,
                                                   ObjectProvider<KeyRenderer> keyRenderer) {
        return new PurgatoriesEndpoint(beanFactory,
                keyRenderer.getIfAvailable(() -> properties.getActuator().keyRenderer()));
    }
}
