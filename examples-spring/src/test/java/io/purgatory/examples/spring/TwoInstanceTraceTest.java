package io.purgatory.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.testbroker.KafkaBroker;
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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * One trace across two instances, as a tracing backend receives it: two instances of the example
 * application in its Kafka mode ({@code examples.payments.feed=kafka}), each on its embedded Tomcat
 * on a random loopback port, against one real broker (a child JVM), with Micrometer Tracing on the
 * OpenTelemetry SDK as Spring Boot configures them. A long poll waits on instance A; the payment is
 * posted to instance B, which publishes it in a PRODUCER span with its trace context in the
 * record's headers; A's feed answers the wait inside a CONSUMER span of that trace, and the wait's
 * span, the child of A's request, links to it. docs/tracing.md shows the trace as this test renders it.
 */
class TwoInstanceTraceTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60); // generous: nothing here is meant to take it
    private static final String TOPIC = "payments";
    private static final AttributeKey<String> SERVICE = AttributeKey.stringKey("service.name");
    private static KafkaBroker broker;
    private static ConfigurableApplicationContext instanceA;
    private static ConfigurableApplicationContext instanceB;

    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        broker = KafkaBroker.builder().start();
        broker.createTopic(TOPIC, 1);
        instanceA = instance("instance-a");
        instanceB = instance("instance-b");
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {instanceA, instanceB, broker}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException("could not close " + closeable, e);
            }
        }
    }

    /** The example application in its Kafka mode, every request traced, its spans in memory. */
    private static ConfigurableApplicationContext instance(String name) {
        return new SpringApplicationBuilder(OrderPaymentsApplication.class, InMemorySpans.class).run(
                "--spring.application.name=" + name, "--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--examples.log-spans=false",
                "--management.tracing.sampling.probability=1.0", "--examples.payments.feed=kafka",
                "--examples.payments.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                "--examples.payments.kafka.topic=" + TOPIC);
    }

    @Test
    void longPoll_onAAnsweredByAPaymentPostedToB_itsWaitSpanLinksToThePaymentsTrace() {
        @SuppressWarnings("unchecked")
        KeyedWaits<String, Payment> waitsOnA = instanceA.getBean(KeyedWaits.class);
        await().atMost(DEADLINE).until(() -> instanceA.getBean(KafkaFeed.class).isReady()
                && instanceB.getBean(KafkaFeed.class).isReady());

        CompletableFuture<HttpResponse<String>> poll = send(instanceA, "GET", "/orders/42/wait", null);
        await().atMost(DEADLINE).until(() -> waitsOnA.pending() == 1);
        assertThat(send(instanceB, "POST", "/orders/42/paid", "{\"amount\":\"12.50 EUR\",\"reference\":\"tx-1\"}")
                .join().statusCode()).isEqualTo(202);
        HttpResponse<String> answer = poll.join();
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("{\"amount\":\"12.50 EUR\",\"reference\":\"tx-1\"}");
        await().atMost(DEADLINE).until(() -> spans(s -> s.getKind() == SpanKind.SERVER).size() == 2
                && spans(s -> s.getKind() == SpanKind.CONSUMER).size() == 2);

        SpanData get = one("instance-a", "http get /orders/{id}/wait");
        SpanData waitSpan = one("instance-a", "payments wait");
        SpanData post = one("instance-b", "http post /orders/{id}/paid");
        SpanData publish = one("instance-b", "send " + TOPIC);
        SpanData processOnA = one("instance-a", "process " + TOPIC);
        SpanData processOnB = one("instance-b", "process " + TOPIC);

        assertThat(waitSpan.getParentSpanId()).as("the wait is A's request's child").isEqualTo(get.getSpanId());
        assertThat(waitSpan.getTraceId()).isEqualTo(get.getTraceId()).isNotEqualTo(post.getTraceId());
        assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(publish.getParentSpanId()).as("B publishes in its request").isEqualTo(post.getSpanId());
        assertThat(List.of(publish, processOnA, processOnB)).as("the payment's trace, across both instances")
                .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(post.getTraceId()));
        assertThat(processOnA.getParentSpanId()).as("A read B's publish span from the record")
                .isEqualTo(publish.getSpanId());
        assertThat(processOnB.getParentSpanId()).isEqualTo(publish.getSpanId());
        assertThat(waitSpan.getLinks()).as("the wait links to the record's span on A").singleElement()
                .satisfies(link -> {
                    assertThat(link.getSpanContext().getTraceId()).isEqualTo(post.getTraceId());
                    assertThat(link.getSpanContext().getSpanId()).isEqualTo(processOnA.getSpanId());
                    assertThat(link.getAttributes().get(AttributeKey.stringKey("purgatory.link")))
                            .isEqualTo("answered_by");
                });
        assertThat(attribute(waitSpan, "outcome")).isEqualTo("completed");
        assertThat(waitSpan.getStartEpochNanos()).as("back-dated to the await")
                .isBetween(get.getStartEpochNanos(), post.getStartEpochNanos());
        assertThat(waitSpan.getEndEpochNanos()).as("ended by the payment, before A's answer")
                .isBetween(post.getStartEpochNanos(), get.getEndEpochNanos());
        assertThat(processOnA.getAttributes().get(AttributeKey.longKey("purgatory.waits.answered"))).isEqualTo(1);
        assertThat(processOnB.getAttributes().get(AttributeKey.longKey("purgatory.waits.answered"))).isZero();

        String rendered = render(get, waitSpan, post, publish, List.of(processOnA, processOnB));
        assertThat(read("docs/tracing.md")).as("docs/tracing.md shows the trace this test sees:%n%s", rendered)
                .contains(rendered);
    }

    /** Both traces as docs/tracing.md shows them: each span's name, kind, instance and key attributes. */
    private static String render(SpanData get, SpanData wait, SpanData post, SpanData publish,
                                 List<SpanData> processes) {
        LinkData link = wait.getLinks().get(0);
        SpanData linked = processes.stream().filter(s -> s.getSpanId().equals(link.getSpanContext().getSpanId()))
                .findFirst().orElseThrow();
        StringBuilder text = new StringBuilder();
        text.append(line("", get, "method", "uri", "status"))
                .append(line("└─ ", wait, "outcome", "purgatory.keys"))
                .append("   ⤷ link purgatory.link=").append(link.getAttributes().get(
                        AttributeKey.stringKey("purgatory.link"))).append(" to ").append(linked.getName())
                .append(" [").append(instance(linked)).append("], in the payment's trace\n")
                .append('\n')
                .append(line("", post, "method", "uri", "status"))
                .append(line("└─ ", publish, "messaging.destination.name"));
        List<SpanData> byInstance = processes.stream().sorted(Comparator.comparing(TwoInstanceTraceTest::instance))
                .toList();
        for (int i = 0; i < byInstance.size(); i++) {
            text.append(line(i < byInstance.size() - 1 ? "   ├─ " : "   └─ ", byInstance.get(i),
                    "purgatory.waits.answered"));
        }
        return text.toString();
    }

    private static String line(String prefix, SpanData span, String... keys) {
        StringBuilder text = new StringBuilder(prefix).append(span.getName()).append(" (").append(span.getKind())
                .append(") [").append(instance(span)).append("]");
        for (int i = 0; i < keys.length; i++) {
            String key = keys[i];
            Object value = span.getAttributes().asMap().entrySet().stream()
                    .filter(e -> e.getKey().getKey().equals(key)).map(Map.Entry::getValue).findFirst().orElse(null);
            text.append(i == 0 ? " " : ", ").append(key).append('=').append(value);
        }
        return text.append('\n').toString();
    }

    private static String instance(SpanData span) {
        return span.getResource().getAttribute(SERVICE);
    }

    private static List<SpanData> spans(Predicate<SpanData> which) {
        return InMemorySpans.EXPORTED.getFinishedSpanItems().stream().filter(which).toList();
    }

    private static SpanData one(String instance, String name) {
        List<SpanData> found = spans(s -> instance.equals(instance(s)) && s.getName().equals(name));
        assertThat(found).as("%s's spans named %s among %s", instance, name, InMemorySpans.EXPORTED
                .getFinishedSpanItems()).hasSize(1);
        return found.get(0);
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static String read(String doc) {
        try {
            return Files.readString(Path.of(System.getProperty("repository.root"), doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private CompletableFuture<HttpResponse<String>> send(ConfigurableApplicationContext instance, String method,
                                                         String path, String json) {
        int port = ((WebServerApplicationContext) instance).getWebServer().getPort();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (json == null) {
            request.method(method, BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, BodyPublishers.ofString(json));
        }
        return client.sendAsync(request.build(), BodyHandlers.ofString()).orTimeout(60, TimeUnit.SECONDS);
    }

    /**
     * Each span either instance ends, at once, into one memory (Spring Boot adds each SpanProcessor
     * bean to its SDK's tracer provider); the instance is the span's {@code service.name}.
     */
    @TestConfiguration(proxyBeanMethods = false)
    static class InMemorySpans {
        static final InMemorySpanExporter EXPORTED = InMemorySpanExporter.create();

        @Bean
        SpanProcessor inMemorySpans() {
            return SimpleSpanProcessor.create(EXPORTED);
        }
    }
}
