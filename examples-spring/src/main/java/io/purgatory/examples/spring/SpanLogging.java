package io.purgatory.examples.spring;

import io.opentelemetry.exporter.logging.otlp.OtlpJsonLoggingSpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Logs each span the application ends as one line of OTLP JSON (Spring Boot hands every
 * {@code SpanExporter} bean to the OpenTelemetry SDK), which carries what a tracing backend gets:
 * the trace and span ids, the {@code parentSpanId}, the attributes and the {@code links}. So the
 * log shows the request's {@code http get /orders/{id}/wait} span, its child {@code payments wait},
 * and, in the Kafka mode, that wait's link to the {@code process payments} span of the payment's
 * trace, published on another instance. (OpenTelemetry's plain {@code LoggingSpanExporter} prints
 * neither parents nor links.) An application would export over OTLP instead. Off with
 * {@code examples.log-spans=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "examples.log-spans", matchIfMissing = true)
public class SpanLogging {

    @Bean
    SpanExporter otlpJsonLoggingSpanExporter() {
        return OtlpJsonLoggingSpanExporter.create();
    }
}
