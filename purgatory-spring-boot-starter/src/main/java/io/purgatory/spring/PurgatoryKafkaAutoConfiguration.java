package io.purgatory.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.kafka.KafkaFeedMetrics;
import io.purgatory.kafka.KafkaTracing;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * With {@code purgatory-kafka} on the class path: a {@code KafkaFeed} bean ({@code <waits>KafkaFeed})
 * per entry of {@code purgatory.kafka.feeds}, each completing the keyed waits bean its key names
 * ({@link KafkaFeedFactory}), started with the context. For every {@code KafkaFeed} bean, the
 * application's own too: its meters in the context's {@code MeterRegistry} ({@link KafkaFeedMetrics},
 * unless {@code purgatory.metrics.enabled} is false), its readiness in the {@code kafkaFeeds} health
 * contributor ({@link KafkaFeedHealthChecks}, shown by each Boot line's health auto-configuration),
 * and its close before the waits it completes at shutdown ({@link PurgatoryShutdown}). With Micrometer
 * Tracing's {@code Tracer} and {@code Propagator} beans, a {@link KafkaTracing} bean: each record's
 * span, from the trace context its publisher put in its headers, is current while its waits end.
 */
@AutoConfiguration(after = PurgatoryAutoConfiguration.class, afterName = {
    "org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.tracing.OpenTelemetryTracingAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.tracing.BraveAutoConfiguration",
    "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
    "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
    "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration"})
@ConditionalOnClass(name = "io.purgatory.kafka.KafkaFeed")
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryKafkaAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(PurgatoryKafkaAutoConfiguration.class);

    /** A feed bean per {@code purgatory.kafka.feeds} entry. */
    @Bean
    static BeanDefinitionRegistryPostProcessor purgatoryKafkaFeedRegistrar() {
        return new FeedRegistrar();
    }

    /** Builds the feeds of the entries. */
    @Bean
    KafkaFeedFactory purgatoryKafkaFeedFactory(ConfigurableListableBeanFactory beanFactory,
                                               PurgatoryProperties properties, Environment environment,
                                               ObjectProvider<KafkaFeedMapping<?, ?>> mappings,
                                               ObjectProvider<KafkaTracing> tracing) {
        return new KafkaFeedFactory(beanFactory, properties, Binder.get(environment), mappings, tracing);
    }

    /** The readiness of every feed bean, for the health contributor of the Boot line. */
    @Bean
    @ConditionalOnMissingBean
    public KafkaFeedHealthChecks kafkaFeedHealthChecks(ConfigurableListableBeanFactory beanFactory) {
        return new KafkaFeedHealthChecks(beanFactory);
    }

    /** Closes every feed bean before the purgatories, at shutdown. */
    @Bean
    PurgatoryFeeds purgatoryKafkaFeeds(ConfigurableListableBeanFactory beanFactory) {
        return () -> {
            for (String bean : beanFactory.getBeanNamesForType(KafkaFeed.class, false, false)) {
                if (beanFactory.getSingleton(bean) instanceof KafkaFeed<?, ?> feed) {
                    try {
                        feed.close();
                    } catch (RuntimeException | Error failure) {
                        LOG.error("Closing feed bean '{}' failed; closing the others", bean, failure);
                    }
                }
            }
        };
    }

    /** The feeds' meters, with Micrometer and a {@code MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnProperty(prefix = "purgatory.metrics", name = "enabled", matchIfMissing = true)
    static class Metrics {

        @Bean
        static FeedMetricsBinder purgatoryKafkaFeedMetricsBinder(ObjectProvider<MeterRegistry> registry) {
            return new FeedMetricsBinder(registry);
        }
    }

    /** The records' spans, with Micrometer Tracing. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.micrometer.tracing.Tracer", "io.micrometer.tracing.propagation.Propagator"})
    @ConditionalOnBean({Tracer.class, Propagator.class})
    static class Tracing {

        @Bean
        @ConditionalOnMissingBean
        KafkaTracing purgatoryKafkaTracing(Tracer tracer, Propagator propagator) {
            return KafkaTracing.of(tracer, propagator);
        }
    }

    /** Registers {@code <waits>KafkaFeed} for each entry; the factory builds it when it is created. */
    static final class FeedRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {
        private Environment environment;

        @Override
        public void setEnvironment(Environment environment) {
            this.environment = environment;
        }

        @Override
        public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
            Map<String, Object> feeds = Binder.get(environment)
                    .bind("purgatory.kafka.feeds", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
            for (String waits : feeds.keySet()) {
                RootBeanDefinition feed = new RootBeanDefinition(KafkaFeed.class);
                feed.setInstanceSupplier(() -> ((ConfigurableListableBeanFactory) registry)
                        .getBean(KafkaFeedFactory.class).start(waits));
                if (registry.containsBeanDefinition(waits)) { // else the factory refuses it, naming the property
                    feed.setDependsOn(waits); // created after its waits, destroyed before them
                }
                feed.setDestroyMethodName("close");
                registry.registerBeanDefinition(waits + "KafkaFeed", feed);
            }
        }

        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        }
    }

    /** Binds each feed bean's meters when it is created, and removes them when it is destroyed. */
    static final class FeedMetricsBinder implements DestructionAwareBeanPostProcessor {
        private final ObjectProvider<MeterRegistry> registry;
        private final Map<KafkaFeed<?, ?>, KafkaFeedMetrics> bound = new ConcurrentHashMap<>();

        FeedMetricsBinder(ObjectProvider<MeterRegistry> registry) {
            this.registry = registry;
        }

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (bean instanceof KafkaFeed<?, ?> feed) {
                MeterRegistry meters = registry.getIfUnique();
                if (meters != null) {
                    KafkaFeedMetrics metrics = new KafkaFeedMetrics(feed);
                    metrics.bindTo(meters);
                    bound.put(feed, metrics);
                }
            }
            return bean;
        }

        @Override
        public void postProcessBeforeDestruction(Object bean, String beanName) {
            KafkaFeedMetrics metrics = bound.remove(bean);
            if (metrics != null) {
                metrics.close();
            }
        }

        @Override
        public boolean requiresDestruction(Object bean) {
            return bean instanceof KafkaFeed<?, ?>;
        }
    }
}
