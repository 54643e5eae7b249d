package io.purgatory.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.purgatory.MetricsRecorderFactory;
import io.purgatory.micrometer.MicrometerMetrics;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The purgatory.* meters in the context's {@link MeterRegistry}: a {@link MicrometerMetrics} bean
 * (with {@code purgatory.metrics.buckets}), with which {@link PurgatoryAutoConfiguration} binds
 * every purgatory bean not bound yet and the {@link PurgatoryFactory} binds what
 * it builds. Only with Micrometer and {@code purgatory-micrometer} on the class path, a
 * {@code MeterRegistry} bean (Spring Boot's actuator makes one) and
 * {@code purgatory.metrics.enabled} not false; never the global registry. An application's own
 * {@link MetricsRecorderFactory} bean replaces it.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, MicrometerMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "purgatory.metrics", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryMetricsAutoConfiguration {

    /** Metrics in {@code registry}, with {@code purgatory.metrics.buckets} if set. */
    @Bean
    @ConditionalOnMissingBean(MetricsRecorderFactory.class)
    public MicrometerMetrics purgatoryMetrics(MeterRegistry registry, PurgatoryProperties properties) {
        MicrometerMetrics metrics = MicrometerMetrics.of(registry);
        List<Duration> buckets = properties.getMetrics().getBuckets();
        return buckets == null ? metrics : metrics.withBuckets(buckets.toArray(new Duration[0]));
    }
}
