package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelSpan;
import io.micrometer.tracing.otel.bridge.OtelTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitObserver;
import io.purgatory.WaitOutcome;
import io.purgatory.WaitStart;
import io.purgatory.testsupport.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One trace across two instances, a real broker and a real OpenTelemetry SDK (KafkaTracing F7):
 * a request on instance A waits; B publishes the payment inside its span, through
 * {@link KafkaTracing#inject}; A's feed processes the record in a span that is a child of B's;
 * and A's wait, ended on the feed's thread inside that span, links to it.
 */
@ExtendWith(SharedBroker.class)
class TracedFeedTest {

    private static final AttributeKey<String> LINK = AttributeKey.stringKey("purgatory.link");

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final Instance a = new Instance("a", exported);
    private final Instance b = new Instance("b", exported);

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void aWaitOnA_answeredByAnEventPublishedOnB_linksToTheEventsTrace() throws Exception {
        String topic = SharedBroker.newTopic("traced", 2);
        KafkaFeed<String, String> feedA = a.feed(topic);
        KafkaFeed<String, String> feedB = b.feed(topic);

        Span request = a.tracer.nextSpan().name("GET /orders/42/payment").start();
        CompletableFuture<String> paid;
        Tracer.SpanInScope requestScope = a.tracer.withSpan(request);
        try {
            paid = a.waits.await("order-42", Duration.ofSeconds(60));
        } finally {
            requestScope.close();
        }
        Span publish = b.tracer.nextSpan().name("POST /orders/42/paid").start();
        Tracer.SpanInScope publishScope = b.tracer.withSpan(publish);
        try (KafkaProducer<String, String> producer = Instance.producer()) {
            Instance.get(producer.send(b.kafka.inject(new ProducerRecord<>(topic, "order-42", "PAID"))));
        } finally {
            publishScope.close();
            publish.end();
        }
        assertThat(paid.get(60, TimeUnit.SECONDS)).isEqualTo("PAID");
        request.end();
        Eventually.await("both feeds processed the record", () -> spans(s -> s.getKind() == SpanKind.CONSUMER)
                .size() == 2);

        SpanData requestSpan = one(s -> s.getName().equals("GET /orders/42/payment"));
        SpanData publishSpan = one(s -> s.getName().equals("POST /orders/42/paid"));
        SpanData processOnA = one(s -> s.getKind() == SpanKind.CONSUMER && "a".equals(feedOf(s)));
        SpanData processOnB = one(s -> s.getKind() == SpanKind.CONSUMER && "b".equals(feedOf(s)));
        SpanData waitSpan = one(s -> s.getName().equals("purgatory.wait a"));

        assertThat(publishSpan.getTraceId()).as("two traces: the request's and the payment's")
                .isNotEqualTo(requestSpan.getTraceId());
        assertThat(ids(processOnA.getParentSpanContext())).as("the publish span's context reached A through the record")
                .isEqualTo(ids(publishSpan.getSpanContext()));
        assertThat(processOnA.getName()).isEqualTo("process " + topic);
        assertThat(processOnA.getAttributes().get(AttributeKey.longKey("purgatory.waits.answered"))).isEqualTo(1);
        assertThat(processOnA.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
                .isEqualTo(topic);
        assertThat(ids(processOnB.getParentSpanContext())).isEqualTo(ids(publishSpan.getSpanContext()));
        assertThat(processOnB.getAttributes().get(AttributeKey.longKey("purgatory.waits.answered"))).isZero();

        assertThat(ids(waitSpan.getParentSpanContext())).as("the wait is the request's")
                .isEqualTo(ids(requestSpan.getSpanContext()));
        assertThat(waitSpan.getLinks()).as("and links to the event that answered it")
                .extracting(link -> ids(link.getSpanContext())).containsExactly(ids(processOnA.getSpanContext()));
        assertThat(waitSpan.getLinks().get(0).getAttributes().get(LINK)).isEqualTo("answered_by");
        assertThat(waitSpan.getEndEpochNanos()).as("ended while the record's span was open")
                .isBetween(processOnA.getStartEpochNanos(), processOnA.getEndEpochNanos());
        Eventually.await("A counted its answer, B its event with no waiter", () -> feedA.stats().waitsAnswered() == 1
                && feedB.stats().eventsNoWaiter() == 1); // counted once complete() returned
    }

    @Test
    void aWaitOnA_answeredByAnEventSentOnBThroughKafkaTracingSend_showsPublishSendProcessAndTheWait()
            throws Exception {
        String topic = SharedBroker.newTopic("traced-send", 2);
        a.feed(topic);
        b.feed(topic);

        Span request = a.tracer.nextSpan().name("GET /orders/42/payment").start();
        CompletableFuture<String> paid;
        Tracer.SpanInScope requestScope = a.tracer.withSpan(request);
        try {
            paid = a.waits.await("order-42", Duration.ofSeconds(60));
        } finally {
            requestScope.close();
        }
        Span publish = b.tracer.nextSpan().name("POST /orders/42/paid").start();
        RecordMetadata sent;
        Tracer.SpanInScope publishScope = b.tracer.withSpan(publish);
        try (KafkaProducer<String, String> producer = Instance.producer()) {
            sent = Instance.get(b.kafka.send(producer, new ProducerRecord<>(topic, "order-42", "PAID")));
        } finally {
            publishScope.close();
            publish.end();
        }
        assertThat(paid.get(60, TimeUnit.SECONDS)).isEqualTo("PAID");
        request.end();
        Eventually.await("both feeds processed the record, and the send span ended", () ->
                spans(s -> s.getKind() == SpanKind.CONSUMER).size() == 2
                        && spans(s -> s.getKind() == SpanKind.PRODUCER).size() == 1);

        SpanData requestSpan = one(s -> s.getName().equals("GET /orders/42/payment"));
        SpanData publishSpan = one(s -> s.getName().equals("POST /orders/42/paid"));
        SpanData sendSpan = one(s -> s.getKind() == SpanKind.PRODUCER);
        SpanData processOnA = one(s -> s.getKind() == SpanKind.CONSUMER && "a".equals(feedOf(s)));
        SpanData processOnB = one(s -> s.getKind() == SpanKind.CONSUMER && "b".equals(feedOf(s)));
        SpanData waitSpan = one(s -> s.getName().equals("purgatory.wait a"));

        assertThat(sendSpan.getName()).isEqualTo("send " + topic);
        assertThat(ids(sendSpan.getParentSpanContext())).as("publish -> send")
                .isEqualTo(ids(publishSpan.getSpanContext()));
        assertThat(sendSpan.getAttributes().get(AttributeKey.stringKey("messaging.destination.partition.id")))
                .isEqualTo(Integer.toString(sent.partition()));
        assertThat(sendSpan.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")))
                .isEqualTo(sent.offset());
        assertThat(ids(processOnA.getParentSpanContext())).as("send -> process, on A")
                .isEqualTo(ids(sendSpan.getSpanContext()));
        assertThat(ids(processOnB.getParentSpanContext())).as("send -> process, on B")
                .isEqualTo(ids(sendSpan.getSpanContext()));
        assertThat(processOnA.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")))
                .isEqualTo(sent.offset());
        assertThat(ids(waitSpan.getParentSpanContext())).as("the wait is the request's")
                .isEqualTo(ids(requestSpan.getSpanContext()));
        assertThat(waitSpan.getLinks()).as("process -> the wait it answered, by a link")
                .extracting(link -> ids(link.getSpanContext())).containsExactly(ids(processOnA.getSpanContext()));
    }

    @Test
    void feed_recordWithoutATraceContext_isHandedOverUntraced() throws Exception {
        String topic = SharedBroker.newTopic("untraced", 1);
        KafkaFeed<String, String> feedA = a.feed(topic);
        CompletableFuture<String> paid = a.waits.await("order-7", Duration.ofSeconds(60));

        try (KafkaProducer<String, String> producer = Instance.producer()) {
            Instance.get(producer.send(new ProducerRecord<>(topic, "order-7", "PAID")));
        }

        assertThat(paid.get(60, TimeUnit.SECONDS)).isEqualTo("PAID");
        Eventually.await("the wait's span is exported", () -> !spans(s -> s.getName().startsWith("purgatory.wait"))
                .isEmpty());
        assertThat(spans(s -> s.getKind() == SpanKind.CONSUMER)).isEmpty();
        assertThat(one(s -> s.getName().startsWith("purgatory.wait")).getLinks()).as("nothing to link to").isEmpty();
        Eventually.await("A counted the event", () -> feedA.stats().eventsCompleted() == 1);
    }

    private List<SpanData> spans(Predicate<SpanData> which) {
        return exported.getFinishedSpanItems().stream().filter(which).toList();
    }

    private SpanData one(Predicate<SpanData> which) {
        List<SpanData> found = spans(which);
        assertThat(found).as("spans exported: %s", exported.getFinishedSpanItems()).hasSize(1);
        return found.get(0);
    }

    /** A span's trace and span ids: its context, remote (read from a record) or not. */
    private static String ids(SpanContext context) {
        return context.getTraceId() + "/" + context.getSpanId();
    }

    private static String feedOf(SpanData span) {
        return span.getAttributes().get(AttributeKey.stringKey("purgatory.feed"));
    }

    /**
     * One traced instance: its own OpenTelemetry SDK behind Micrometer Tracing (exporting to the
     * test's memory), its keyed waits observed by {@link LinkingObserver}, and its feed.
     */
    static final class Instance implements AutoCloseable {
        final SdkTracerProvider provider;
        final Tracer tracer;
        final KafkaTracing kafka;
        final KeyedWaits<String, String> waits;
        private KafkaFeed<String, String> feed;

        Instance(String name, InMemorySpanExporter exporter) {
            provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
            io.opentelemetry.api.trace.Tracer otel = provider.get("purgatory-test-" + name);
            tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), event -> { });
            kafka = KafkaTracing.of(tracer, new OtelPropagator(ContextPropagators.create(
                    W3CTraceContextPropagator.getInstance()), otel));
            waits = KeyedWaits.builder(name).retainEvents(Duration.ofSeconds(30), 1_000)
                    .observer(new LinkingObserver(tracer)).build();
        }

        KafkaFeed<String, String> feed(String topic) {
            feed = KafkaFeed.builder(waits, topic).bootstrapServers(SharedBroker.broker().bootstrapServers())
                    .key(record -> new String(record.key(), UTF_8))
                    .value(record -> new String(record.value(), UTF_8))
                    .tracing(kafka).build().start();
            return feed;
        }

        static KafkaProducer<String, String> producer() {
            return io.purgatory.kafka.Instance.producer();
        }

        static <T> T get(java.util.concurrent.Future<T> future) {
            return io.purgatory.kafka.Instance.get(future);
        }

        @Override
        public void close() {
            if (feed != null) {
                feed.close();
            }
            waits.close();
            provider.close();
        }
    }

    /**
     * A tiny observer standing in for any tracing one: a span per wait, a child of the span
     * current at {@code await}; when the wait ends, a link to the span current then, if it is of
     * another trace (on the feed's thread: the record's), added with OpenTelemetry's
     * {@code Span.addLink}, since a Micrometer Tracing span takes links only when it starts.
     */
    static final class LinkingObserver implements WaitObserver {
        private final Tracer tracer;

        LinkingObserver(Tracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public Object started(WaitStart start) {
            return tracer.nextSpan().name("purgatory.wait " + start.purgatory()).start();
        }

        @Override
        public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
            Span wait = (Span) handle;
            Span current = tracer.currentSpan();
            if (current != null && !current.context().traceId().equals(wait.context().traceId())) {
                OtelSpan.toOtel(wait).addLink(OtelTraceContext.toOtelSpanContext(current.context()),
                        Attributes.of(LINK, "answered_by"));
            }
            wait.tag("purgatory.outcome", outcome.name()).end();
        }
    }
}
