package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.purgatory.KeyedWaits;
import io.purgatory.micrometer.MicrometerObservations;
import io.purgatory.micrometer.WaitTracingHandler;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The wait tracing handler as Spring Boot's tracing meets it: with a Micrometer Tracing
 * {@code Tracer} bean (Spring Boot's, on the OpenTelemetry SDK) each wait's span is the handler's,
 * the child of the request's and linked to the span that answered it; without a tracer, without
 * Micrometer Tracing on the class path, or with either property false there is no handler, and the
 * waits work as before. Then the order-payment application on Tomcat: a long poll answered by
 * another request's payment has its span linked to that request's.
 */
class WaitTracingAutoConfigurationTest {

    private static final Duration LONG = Duration.ofMinutes(10);
    private static final AttributeKey<String> LINK = AttributeKey.stringKey(WaitTracingHandler.LINK);

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();

    /** Spring Boot's observation and tracing auto-configurations on the OpenTelemetry SDK, every trace sampled. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                    PurgatoryObservationAutoConfiguration.class, ObservationAutoConfiguration.class,
                    MicrometerTracingAutoConfiguration.class, OpenTelemetrySdkAutoConfiguration.class,
                    OpenTelemetryTracingAutoConfiguration.class, MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
            .withPropertyValues("management.tracing.sampling.probability=1.0")
            .withBean(SpanProcessor.class, () -> SimpleSpanProcessor.create(exported));

    @Test
    void autoConfiguration_tracerBean_theHandlerMakesEachWaitsSpan_linkedToTheAnswer() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(WaitTracingHandler.class).hasSingleBean(MicrometerObservations.class);
            assertThat(context.getBean(WaitTracingHandler.class).getTracer()).isSameAs(context.getBean(Tracer.class));

            answeredInAnotherTrace(context);

            SpanData request = one(s -> s.getName().equals("request"));
            SpanData answer = one(s -> s.getName().equals("answer"));
            SpanData wait = one(s -> s.getName().equals("payments wait"));
            assertThat(wait.getParentSpanId()).as("the request's child").isEqualTo(request.getSpanId());
            assertThat(wait.getTraceId()).isEqualTo(request.getTraceId()).isNotEqualTo(answer.getTraceId());
            assertThat(wait.getLinks()).singleElement().satisfies(link -> {
                assertThat(link.getSpanContext().getSpanId()).isEqualTo(answer.getSpanId());
                assertThat(link.getAttributes().get(LINK)).isEqualTo("answered_by");
            });
            assertThat(wait.getAttributes().get(AttributeKey.stringKey("outcome"))).isEqualTo("completed");
            assertThat(context.getBean(MeterRegistry.class).get("purgatory.wait").tag("outcome", "completed")
                    .timer().count()).as("the meter handler, tracing-aware, timed it too").isEqualTo(1);
        });
    }

    @Test
    void linkAnswersFalse_noHandler_micrometersDefaultHandlerMakesTheSpanWithoutALink() {
        runner.withPropertyValues("purgatory.observations.link-answers=false").run(context -> {
            assertThat(context).doesNotHaveBean(WaitTracingHandler.class).hasSingleBean(MicrometerObservations.class);

            answeredInAnotherTrace(context);

            SpanData wait = one(s -> s.getName().equals("payments wait"));
            assertThat(wait.getParentSpanId()).isEqualTo(one(s -> s.getName().equals("request")).getSpanId());
            assertThat(wait.getLinks()).isEmpty();
        });
    }

    @Test
    void observationsDisabled_noHandler_andNoWaitSpan() {
        runner.withPropertyValues("purgatory.observations.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(WaitTracingHandler.class).doesNotHaveBean(MicrometerObservations.class);

            answeredInAnotherTrace(context);

            assertThat(exported.getFinishedSpanItems()).extracting(SpanData::getName)
                    .containsExactlyInAnyOrder("request", "answer");
        });
    }

    @Test
    void withoutATracerBean_noHandler_andTheWaitsAreObserved() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                        PurgatoryObservationAutoConfiguration.class, ObservationAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(WaitTracingHandler.class)
                            .hasSingleBean(MicrometerObservations.class);
                    assertThat(answeredWait(context)).isCompletedWithValue("paid");
                });
    }

    @Test
    void withoutMicrometerTracingOnTheClassPath_noHandler_andTheWaitsAreObserved() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.tracing", "io.opentelemetry")).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(WaitTracingHandler.class)
                    .hasSingleBean(MicrometerObservations.class);
            assertThat(answeredWait(context)).isCompletedWithValue("paid");
        });
    }

    @Test
    void autoConfiguration_applicationsOwnHandler_isKept() {
        runner.withUserConfiguration(OwnHandler.class).run(context -> {
            assertThat(context).hasSingleBean(WaitTracingHandler.class);
            assertThat(context.getBean(WaitTracingHandler.class)).isSameAs(OwnHandler.HANDLER);
        });
    }

    /**
     * The long poll on Tomcat with Spring Boot's tracing: the wait is made in the GET request's
     * span and answered by the POST request's, another trace; its span is the GET's child, linked
     * to the POST's server span, and ends before the GET's.
     */
    @Test
    void longPoll_answeredByAnotherRequest_itsSpanIsTheRequestsChild_linkedToTheOtherRequest() {
        ConfigurableApplicationContext app = PaymentsApp.start(WebApplicationType.SERVLET, List.of(InMemorySpans.class),
                "--management.tracing.sampling.probability=1.0");
        try {
            @SuppressWarnings("unchecked")
            KeyedWaits<String, PaymentsApp.Payment> payments = app.getBean("payments", KeyedWaits.class);
            Http http = new Http(((WebServerApplicationContext) app).getWebServer().getPort());
            CompletableFuture<HttpResponse<String>> wait = http.get("/orders/7/wait");
            await().atMost(Duration.ofSeconds(20)).until(() -> payments.pending() == 1);
            assertThat(http.post("/orders/7/paid", "{\"amount\":\"3 EUR\"}").join().statusCode()).isEqualTo(200);
            assertThat(wait.join().statusCode()).isEqualTo(200);

            InMemorySpanExporter spans = InMemorySpans.EXPORTED;
            await().atMost(Duration.ofSeconds(20)).until(() -> spans.getFinishedSpanItems().stream()
                    .filter(s -> s.getKind() == SpanKind.SERVER).count() == 2);
            List<SpanData> finished = spans.getFinishedSpanItems();
            SpanData get = only(finished, s -> s.getName().equals("http get /orders/{id}/wait"));
            SpanData post = only(finished, s -> s.getName().equals("http post /orders/{id}/paid"));
            SpanData waitSpan = only(finished, s -> s.getName().equals("payments wait"));
            assertThat(waitSpan.getParentSpanId()).isEqualTo(get.getSpanId());
            assertThat(waitSpan.getTraceId()).isEqualTo(get.getTraceId()).isNotEqualTo(post.getTraceId());
            assertThat(waitSpan.getLinks()).singleElement().satisfies(link -> {
                assertThat(link.getSpanContext().getTraceId()).isEqualTo(post.getTraceId());
                assertThat(link.getSpanContext().getSpanId()).isEqualTo(post.getSpanId());
                assertThat(link.getAttributes().get(LINK)).isEqualTo("answered_by");
            });
            assertThat(waitSpan.getStartEpochNanos()).isBetween(get.getStartEpochNanos(), post.getStartEpochNanos());
            assertThat(waitSpan.getEndEpochNanos()).isBetween(post.getStartEpochNanos(), get.getEndEpochNanos());
        } finally {
            app.close();
        }
    }

    /**
     * A wait made inside the observation "request", answered inside the span "answer" of another
     * trace; each its own root.
     */
    private static void answeredInAnotherTrace(AssertableApplicationContext context) {
        ObservationRegistry registry = context.getBean(ObservationRegistry.class);
        Tracer tracer = context.getBean(Tracer.class);
        KeyedWaits<String, String> payments = context.getBean(PurgatoryFactory.class).keyedWaits("payments").build();
        Observation request = Observation.start("request", registry);
        Observation.Scope scope = request.openScope();
        CompletableFuture<String> wait = payments.await("order-42", LONG);
        scope.close();
        Span answer = tracer.nextSpan().name("answer").start();
        Tracer.SpanInScope inAnswer = tracer.withSpan(answer);
        payments.complete("order-42", "paid");
        inAnswer.close();
        answer.end();
        request.stop();
        payments.close();
        assertThat(wait).isCompletedWithValue("paid");
    }

    private static CompletableFuture<String> answeredWait(AssertableApplicationContext context) {
        KeyedWaits<String, String> payments = context.getBean(PurgatoryFactory.class).keyedWaits("payments").build();
        CompletableFuture<String> wait = payments.await("order-42", LONG);
        payments.complete("order-42", "paid");
        payments.close();
        return wait;
    }

    private SpanData one(Predicate<SpanData> which) {
        return only(exported.getFinishedSpanItems(), which);
    }

    private static SpanData only(List<SpanData> spans, Predicate<SpanData> which) {
        List<SpanData> found = spans.stream().filter(which).toList();
        assertThat(found).as("spans exported: %s", spans).hasSize(1);
        return found.get(0);
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnHandler {
        static final WaitTracingHandler HANDLER = new WaitTracingHandler(Tracer.NOOP);

        @Bean
        WaitTracingHandler ownWaitTracingHandler() {
            return HANDLER;
        }
    }

    /** Each span the application ends, at once, in memory: Spring Boot adds each SpanProcessor bean. */
    @Configuration(proxyBeanMethods = false)
    static class InMemorySpans {
        static final InMemorySpanExporter EXPORTED = InMemorySpanExporter.create();

        @Bean
        SpanProcessor inMemorySpans() {
            return SimpleSpanProcessor.create(EXPORTED);
        }
    }
}
