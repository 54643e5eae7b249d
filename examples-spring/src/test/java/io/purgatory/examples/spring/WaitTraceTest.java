package io.purgatory.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.purgatory.KeyedWaits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The trace of a long poll, as a tracing backend receives it: the example application on its
 * embedded Tomcat (a random loopback port), Micrometer Tracing on the OpenTelemetry SDK as Spring
 * Boot configures them, and the spans read from an in-memory exporter. A long poll waits, the
 * payment answers it, and the request's server span has the wait's span as its child, with the
 * purgatory, the outcome and the order id. docs/tracing.md and docs/spring-boot.md show this trace as
 * this test renders it.
 */
@AutoConfigureObservability // a test context exports no spans without it
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "server.address=127.0.0.1", "spring.main.banner-mode=off", "examples.log-spans=false"})
class WaitTraceTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30); // generous: nothing here is meant to take it
    private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
    private final HttpClient client = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private KeyedWaits<String, Payment> payments;

    /** Each span as it ends, at once: Spring Boot adds every SpanProcessor bean to the SDK's tracer provider. */
    @TestConfiguration(proxyBeanMethods = false)
    static class InMemorySpans {
        @Bean
        SpanProcessor inMemorySpans() {
            return SimpleSpanProcessor.create(SPANS);
        }
    }

    @Test
    void longPoll_answeredByThePayment_theWaitIsAChildSpanOfTheRequestWithItsOutcomeAndKey() {
        CompletableFuture<HttpResponse<String>> wait = send("GET", "/orders/42/wait", null);
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);
        assertThat(send("POST", "/orders/42/paid", "{\"amount\":\"12.50 EUR\",\"reference\":\"tx-1\"}").join()
                .statusCode()).isEqualTo(202);
        assertThat(wait.join().statusCode()).isEqualTo(200);

        SpanData request = await().atMost(DEADLINE).until(() -> span("http get /orders/{id}/wait"), s -> s != null);
        SpanData waitSpan = span("payments wait");

        assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(waitSpan.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(waitSpan.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(waitSpan.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(attribute(waitSpan, "purgatory")).isEqualTo("payments");
        assertThat(attribute(waitSpan, "outcome")).isEqualTo("completed");
        assertThat(attribute(waitSpan, "purgatory.keys")).isEqualTo("42");
        assertThat(attribute(waitSpan, "purgatory.timeout.ms")).isEqualTo("20000");
        assertThat(waitSpan.getEndEpochNanos()).isLessThanOrEqualTo(request.getEndEpochNanos());
        String tree = tree(request, waitSpan);
        for (String doc : List.of("docs/tracing.md", "docs/spring-boot.md")) {
            assertThat(read(doc)).as("%s shows the trace this test sees:%n%s", doc, tree).contains(tree);
        }
    }

    /** The trace as the docs show it: the request's span and its child, with their key attributes. */
    private static String tree(SpanData request, SpanData wait) {
        return request.getName() + " (" + request.getKind() + ") " + attributes(request, "method", "uri", "status")
                + "\n└─ " + wait.getName() + " (" + wait.getKind() + ") "
                + attributes(wait, "purgatory", "outcome", "purgatory.keys", "purgatory.timeout.ms") + "\n";
    }

    private static String attributes(SpanData span, String... keys) {
        StringBuilder text = new StringBuilder();
        for (String key : keys) {
            text.append(text.length() == 0 ? "" : ", ").append(key).append('=').append(attribute(span, key));
        }
        return text.toString();
    }

    private static String read(String doc) {
        try {
            return Files.readString(Path.of(System.getProperty("repository.root"), doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The finished span named {@code name} (the last, if several), or null. */
    private static SpanData span(String name) {
        List<SpanData> named = SPANS.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        return named.isEmpty() ? null : named.get(named.size() - 1);
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (json == null) {
            request.method(method, BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, BodyPublishers.ofString(json));
        }
        return client.sendAsync(request.build(), BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS);
    }
}
