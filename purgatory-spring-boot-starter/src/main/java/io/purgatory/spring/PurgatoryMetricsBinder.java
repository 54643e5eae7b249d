package io.purgatory.spring;

import io.purgatory.MetricsRecorderFactory;
import io.purgatory.Purgatory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Binds every purgatory bean (any {@link Purgatory}) that has no metrics yet with the context's
 * {@link MetricsRecorderFactory} (by default the purgatory.* meters in its {@code MeterRegistry}),
 * once the bean is initialized. A bean built with {@code .metrics(...)}, or by the
 * {@link PurgatoryFactory}, is bound already and left alone; a closed one cannot be bound. The
 * factory is looked up at the first purgatory, not when this post-processor is created, so the
 * registry and its configuration are post-processed as usual.
 */
final class PurgatoryMetricsBinder implements BeanPostProcessor {

    private final ObjectProvider<MetricsRecorderFactory> metrics;

    PurgatoryMetricsBinder(ObjectProvider<MetricsRecorderFactory> metrics) {
        this.metrics = metrics;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof Purgatory purgatory && !purgatory.hasMetrics() && !purgatory.isClosed()) {
            MetricsRecorderFactory factory = metrics.getIfUnique();
            if (factory != null) {
                purgatory.bindMetrics(factory);
            }
        }
        return bean;
    }
}
