package io.purgatory.spring;

import io.purgatory.KeyRenderer;
import java.util.Map;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Refuses, once the context's beans exist, a {@code purgatory.*} property that is set but cannot
 * apply, naming it: the start-up fails with Spring Boot's short report ("Invalid value ... for
 * configuration property ...") instead of the setting being silently ignored.
 * <ul>
 *   <li>{@code purgatory.runtime.*} when the application defines its own {@code PurgatoryRuntime}:
 *       they configure only the starter's;
 *   <li>{@code purgatory.observations.link-answers=true} when {@code purgatory.observations.enabled} is
 *       false, and {@code purgatory.metrics.buckets} when {@code purgatory.metrics.enabled} is false;
 *   <li>{@code purgatory.kafka.*} without {@code purgatory-kafka} on the class path;
 *   <li>{@code purgatory.actuator.keys} when the application defines a {@code KeyRenderer} bean,
 *       which the endpoint shows keys with instead.
 * </ul>
 */
final class InapplicableProperties implements SmartInitializingSingleton {

    /** The bean name of the starter's own runtime (its {@code @Bean} method's). */
    static final String STARTER_RUNTIME = "purgatoryRuntime";
    private static final String KAFKA_FEED = "io.purgatory.kafka.KafkaFeed";

    private final ConfigurableListableBeanFactory beanFactory;
    private final Binder binder;

    InapplicableProperties(ConfigurableListableBeanFactory beanFactory, Environment environment) {
        this.beanFactory = beanFactory;
        this.binder = Binder.get(environment);
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (!startersRuntimeIsUsed()) {
            refuseIfSet("purgatory.runtime", "the application defines its own PurgatoryRuntime bean, which the"
                    + " purgatory.runtime.* properties do not configure: configure that runtime where it is built");
        }
        if (!enabled("purgatory.observations.enabled") && enabled("purgatory.observations.link-answers")) {
            refuseIfSet("purgatory.observations.link-answers", "it cannot apply with purgatory.observations.enabled"
                    + "=false: no wait is observed, so there is no span to link");
        }
        if (!enabled("purgatory.metrics.enabled")) {
            refuseIfSet("purgatory.metrics.buckets", "it cannot apply with purgatory.metrics.enabled=false: no"
                    + " purgatory is bound to the meters");
        }
        if (beanFactory.getBeanNamesForType(KeyRenderer.class, true, false).length > 0) {
            refuseIfSet("purgatory.actuator.keys", "the application defines a KeyRenderer bean, which the purgatories"
                    + " endpoint shows keys with instead: remove the property, or the bean");
        }
        if (!ClassUtils.isPresent(KAFKA_FEED, beanFactory.getBeanClassLoader())) {
            refuseIfSet("purgatory.kafka", "io.purgatory:purgatory-kafka is not on the class path, so no feed is"
                    + " built: add it, or remove the property");
        }
    }

    /** Whether the starter's runtime bean exists, rather than one of the application's. */
    private boolean startersRuntimeIsUsed() {
        if (!beanFactory.containsBeanDefinition(STARTER_RUNTIME)) {
            return false;
        }
        BeanDefinition definition = beanFactory.getBeanDefinition(STARTER_RUNTIME);
        return PurgatoryAutoConfiguration.class.getName().equals(definition.getFactoryBeanName());
    }

    private boolean enabled(String property) {
        return binder.bind(property, Boolean.class).orElse(true);
    }

    /** Throws for the first property set under {@code prefix}, a property or a group, naming it. */
    private void refuseIfSet(String prefix, String reason) {
        Object leaf = binder.bind(prefix, Bindable.of(Object.class)).orElse(null);
        if (leaf != null && !(leaf instanceof Map)) {
            throw new InvalidConfigurationPropertyValueException(prefix, leaf, reason);
        }
        Map<String, Object> group = binder.bind(prefix, Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
        for (Map.Entry<String, Object> set : group.entrySet()) {
            Object value = set.getValue();
            String name = prefix + "." + set.getKey();
            while (value instanceof Map<?, ?> nested && !nested.isEmpty()) {
                Map.Entry<?, ?> first = nested.entrySet().iterator().next();
                name = name + "." + first.getKey();
                value = first.getValue();
            }
            throw new InvalidConfigurationPropertyValueException(name, value, reason);
        }
    }
}
