package io.purgatory.spring;

import io.purgatory.MetricsRecorderFactory;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.WaitObserver;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Purgatories as beans: one shared {@link PurgatoryRuntime} (one timer, one driver thread, one
 * expiration executor) unless the application defines its own, a {@link PurgatoryFactory} of
 * builders on it, the metrics binding of every purgatory bean not bound yet (when
 * the context has a {@link MetricsRecorderFactory}: see {@link PurgatoryMetricsAutoConfiguration}),
 * the observation of each wait of the factory's builders (when it has a {@link WaitObserver}: see
 * {@link PurgatoryObservationAutoConfiguration}), and the shutdown that settles them all
 * ({@link PurgatoryShutdown}). Each bean backs off when the application defines one of its type. A
 * {@code purgatory.*} property set where it cannot apply fails the start-up, named.
 */
@AutoConfiguration
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryAutoConfiguration {

    private static final String BOOT3_HEALTH = "org.springframework.boot.actuate.health.HealthIndicator";
    private static final String BOOT3_STARTER = "io.purgatory.spring.boot3.PurgatoryHealthAutoConfiguration";

    /** The shared runtime, configured by {@code purgatory.runtime.*}; closed at shutdown. */
    @Bean
    @ConditionalOnMissingBean
    public PurgatoryRuntime purgatoryRuntime(PurgatoryProperties properties, BeanFactory beans) {
        return RuntimeSettings.build(properties.getRuntime(), beans);
    }

    /** Builders of keyed waits and purgatories on the shared runtime, with the properties, metrics and observer. */
    @Bean
    @ConditionalOnMissingBean
    public PurgatoryFactory purgatoryFactory(PurgatoryRuntime runtime, PurgatoryProperties properties,
                                             ObjectProvider<MetricsRecorderFactory> metrics,
                                             ObjectProvider<WaitObserver> observer) {
        return new PurgatoryFactory(runtime, properties, metrics::getIfUnique, observer::getIfUnique);
    }

    /** Binds the purgatory beans that have no metrics yet, when the context has metrics. */
    @Bean
    static PurgatoryMetricsBinder purgatoryMetricsBinder(ObjectProvider<MetricsRecorderFactory> metrics) {
        return new PurgatoryMetricsBinder(metrics);
    }

    /** The Spring MVC requests that wait on a wait, not complete yet: the shutdown lets them complete. */
    @Bean
    @ConditionalOnMissingBean
    AnswersInFlight purgatoryAnswersInFlight() {
        return new AnswersInFlight();
    }

    /** Settles every purgatory at shutdown, after the web server stopped taking requests. */
    @Bean
    @ConditionalOnMissingBean
    PurgatoryShutdown purgatoryShutdown(AnswersInFlight inFlight, ObjectProvider<PurgatoryFeeds> feeds) {
        return new PurgatoryShutdown(inFlight, feeds);
    }

    /**
     * Fails the start-up of a Spring Boot 3 application with the actuator that has this starter
     * without {@code purgatory-spring-boot3-starter}: its health contributors would be missing.
     */
    @Bean
    static SmartInitializingSingleton purgatoryBootLineCheck(ConfigurableListableBeanFactory beanFactory) {
        return () -> {
            ClassLoader loader = beanFactory.getBeanClassLoader();
            if (ClassUtils.isPresent(BOOT3_HEALTH, loader) && !ClassUtils.isPresent(BOOT3_STARTER, loader)) {
                throw new IllegalStateException("This is Spring Boot 3 (" + BOOT3_HEALTH + " is on the class path):"
                        + " depend on io.purgatory:purgatory-spring-boot3-starter, which adds the health contributors"
                        + " on Spring Boot 3's API to this starter");
            }
        };
    }

    /** Refuses, naming it, a {@code purgatory.*} property that is set but cannot apply. */
    @Bean
    static InapplicableProperties purgatoryInapplicableProperties(ConfigurableListableBeanFactory beanFactory,
                                                                  Environment environment) {
        return new InapplicableProperties(beanFactory, environment);
    }
}
