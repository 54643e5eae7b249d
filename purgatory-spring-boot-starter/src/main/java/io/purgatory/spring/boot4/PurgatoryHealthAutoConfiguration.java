package io.purgatory.spring.boot4;

import io.purgatory.spring.KafkaFeedHealthChecks;
import io.purgatory.spring.PurgatoryAutoConfiguration;
import io.purgatory.spring.PurgatoryHealthChecks;
import io.purgatory.spring.PurgatoryProperties;
import io.purgatory.spring.health.Readiness;
import java.time.Clock;
import java.util.Set;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * On Spring Boot 4, with its health module: the {@code purgatories} health contributor (unless
 * {@code management.health.purgatories.enabled} is false), which reports a purgatory that rejects
 * for capacity, or is closed, as {@code OUT_OF_SERVICE} ({@link PurgatoryHealthChecks}); the
 * {@code kafkaFeeds} contributor (unless {@code management.health.kafka-feeds.enabled} is false),
 * which reports a feed that cannot hear its topic as {@code DOWN} ({@link KafkaFeedHealthChecks});
 * and both in the {@code readiness} group when there is one ({@link Readiness}). After Spring
 * Boot's probes, whose post-processor creates that group.
 */
@AutoConfiguration(after = PurgatoryAutoConfiguration.class, afterName = {
    "io.purgatory.spring.PurgatoryKafkaAutoConfiguration",
    "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration"})
@ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthContributor",
    "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"})
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryHealthAutoConfiguration {

    /** The {@code purgatories} health contributor. */
    @Bean
    @ConditionalOnMissingBean(name = "purgatoriesHealthContributor")
    @ConditionalOnEnabledHealthIndicator("purgatories")
    HealthContributor purgatoriesHealthContributor(ConfigurableListableBeanFactory beanFactory,
                                                   PurgatoryProperties properties) {
        return new ChecksHealthContributor(new PurgatoryHealthChecks(beanFactory,
                properties.getHealth().getRejectionWindow(), Clock.systemUTC()));
    }

    /** The {@code kafkaFeeds} health contributor: one indicator per {@code KafkaFeed} bean. */
    @Bean
    @ConditionalOnBean(KafkaFeedHealthChecks.class)
    @ConditionalOnMissingBean(name = "kafkaFeedsHealthContributor")
    @ConditionalOnEnabledHealthIndicator("kafka-feeds")
    HealthContributor kafkaFeedsHealthContributor(KafkaFeedHealthChecks checks) {
        return new ChecksHealthContributor(checks);
    }

    /** The contributors in the readiness group, unless the group's exclude property names them. */
    @Bean
    @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    static ReadinessJoin purgatoriesReadiness(Environment environment) {
        return new ReadinessJoin(new Readiness(Binder.get(environment)
                .bind(Readiness.EXCLUDE_PROPERTY, Bindable.setOf(String.class)).orElse(Set.of())));
    }
}
