package io.purgatory.spring;

import io.purgatory.MetricsRecorderFactory;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.timer.TimerSettings;
import io.purgatory.WaitObserver;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Purgatories as beans: one shared {@link PurgatoryRuntime} (one timer, one driver thread, one
 * expiration executor) unless the application defines its own, a {@link PurgatoryFactory} of
 * builders on it, the metrics binding of every purgatory bean not bound yet (when
 * the context has a {@link MetricsRecorderFactory}: see {@link PurgatoryMetricsAutoConfiguration}),
 * the observation of each wait of the factory's builders (when it has a {@link WaitObserver}: see
 * {@link PurgatoryObservationAutoConfiguration}), and the shutdown that settles them all
 * ({@link PurgatoryShutdown}). Each bean backs off when the application defines one of its type.
 */
@AutoConfiguration
@EnableConfigurationProperties(PurgatoryProperties.class)
public final class PurgatoryAutoConfiguration {

    /** The shared runtime, configured by {@code purgatory.runtime.*}; closed at shutdown. */
    @Bean
    @ConditionalOnMissingBean
    public PurgatoryRuntime purgatoryRuntime(PurgatoryProperties properties) {
        PurgatoryProperties.SharedRuntime runtime = properties.getRuntime();
        return PurgatoryRuntime.builder(runtime.getName())
                .timerSettings(TimerSettings.DEFAULT.withTick(runtime.getTick()).withWheelSize(runtime.getWheelSize()))
                .build();
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
    PurgatoryShutdown purgatoryShutdown(AnswersInFlight inFlight) {
        return new PurgatoryShutdown(inFlight);
    }
}
