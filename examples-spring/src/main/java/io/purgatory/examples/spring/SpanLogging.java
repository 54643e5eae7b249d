package io.purgatory.examples.spring;

import io.opentelemetry.exporter.logging.LoggingSpanExporter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Logs each span the application ends (Spring Boot hands every {@code SpanExporter} bean to the
 * OpenTelemetry SDK): the request's {@code http get /orders/{id}/wait} span and its child
 * {@code payments wait}, the long poll's wait. An application would export to a tracing backend
 * over OTLP instead. Off with {@code examples.log-spans=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "examples.log-spans", matchIfMissing = true)
public class SpanLogging {

    @Bean
    LoggingSpanExporter loggingSpanExporter() {
        return LoggingSpanExporter.create();
    }
}
