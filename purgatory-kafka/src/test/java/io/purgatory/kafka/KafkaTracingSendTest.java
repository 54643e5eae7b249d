package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import ch.qos.logback.classic.Level;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.purgatory.testsupport.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link KafkaTracing#send} without a broker (KafkaTracing F10): on a real OpenTelemetry SDK behind
 * Micrometer Tracing, exporting to memory, and Kafka's {@link MockProducer}, which the test
 * acknowledges or fails; and, with a tracer that throws at each step, that tracing never costs
 * the send.
 */
class KafkaTracingSendTest {

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exported)).build();
    private final io.opentelemetry.api.trace.Tracer otel = provider.get("kafka-tracing-send-test");
    private final Tracer tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), event -> { });
    private final KafkaTracing tracing = KafkaTracing.of(tracer, new OtelPropagator(ContextPropagators.create(
            W3CTraceContextPropagator.getInstance()), otel));
    private final MockProducer<String, String> producer = new MockProducer<>(false, null, new StringSerializer(),
            new StringSerializer());

    @AfterEach
    void close() {
        provider.close();
    }

    @Test
    void send_insideASpan_isAProducerSpanChildOfIt_carriedByTheRecord_endedAtTheAckBeforeTheCallback()
            throws Exception {
        List<List<SpanData>> endedAtCallback = new ArrayList<>();
        Span publish = tracer.nextSpan().name("POST /orders/42/paid").start();
        Future<RecordMetadata> ack;
        Tracer.SpanInScope scope = tracer.withSpan(publish);
        try {
            ack = tracing.send(producer, new ProducerRecord<>("payments", "order-42", "paid"),
                    (metadata, error) -> endedAtCallback.add(List.copyOf(exported.getFinishedSpanItems())));
        } finally {
            scope.close();
        }
        assertThat(exported.getFinishedSpanItems()).as("open until the broker answers").isEmpty();
        assertThat(tracer.currentSpan()).as("the send span is current only during send").isNull();

        producer.completeNext();
        publish.end();

        SpanData send = one(SpanKind.PRODUCER);
        SpanData publishSpan = exported.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("POST /orders/42/paid")).findFirst().orElseThrow();
        assertThat(send.getName()).isEqualTo("send payments");
        assertThat(send.getParentSpanContext().getSpanId()).as("a child of the span current at send")
                .isEqualTo(publishSpan.getSpanContext().getSpanId());
        assertThat(send.getTraceId()).isEqualTo(publishSpan.getTraceId());
        RecordMetadata metadata = ack.get();
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.system"))).isEqualTo("kafka");
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.operation.type"))).isEqualTo("send");
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
                .isEqualTo("payments");
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.destination.partition.id")))
                .isEqualTo(Integer.toString(metadata.partition()));
        assertThat(send.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")))
                .isEqualTo(metadata.offset());
        assertThat(traceparent(producer.history().get(0))).as("the record carries the send span's context")
                .startsWith("00-" + send.getTraceId() + "-" + send.getSpanId() + "-");
        assertThat(endedAtCallback).as("ended before the sender's callback ran").singleElement()
                .satisfies(ended -> assertThat(ended).extracting(SpanData::getName).contains("send payments"));
    }

    @Test
    void send_withoutACurrentSpan_isTheRootOfANewTrace() {
        Future<RecordMetadata> ack = tracing.send(producer, new ProducerRecord<>("payments", "order-7", "paid"));
        producer.completeNext();

        assertThat(ack).isDone();
        SpanData send = one(SpanKind.PRODUCER);
        assertThat(send.getParentSpanContext().isValid()).isFalse();
        assertThat(traceparent(producer.history().get(0))).contains(send.getTraceId(), send.getSpanId());
    }

    @Test
    void send_failedByTheBroker_theSpanRecordsTheError_andTheCallbackGetsIt() {
        List<Exception> errors = new ArrayList<>();
        TimeoutException failure = new TimeoutException("no ack in time");
        Future<RecordMetadata> ack = tracing.send(producer, new ProducerRecord<>("payments", "order-8", "paid"),
                (m, e) -> errors.add(e));

        producer.errorNext(failure);

        assertThat(ack).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .withCause(failure);
        SpanData send = one(SpanKind.PRODUCER);
        assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(send.getEvents()).anySatisfy(event -> assertThat(event.getName()).isEqualTo("exception"));
        assertThat(errors).containsExactly(failure);
    }

    @Test
    void send_producerThrowsAtOnce_theSpanRecordsItAndEnds_andTheCallerGetsIt() {
        KafkaException closed = new KafkaException("the producer is closed");
        producer.sendException = closed;

        assertThatThrownBy(() -> tracing.send(producer, new ProducerRecord<>("payments", "order-9", "paid")))
                .isSameAs(closed);

        SpanData send = one(SpanKind.PRODUCER);
        assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(tracer.currentSpan()).isNull();
    }

    /** The steps of the tracer and the propagator that the send path calls. */
    enum Step { START, INJECT, WITH_SPAN, END }

    @ParameterizedTest(name = "{0} throws")
    @EnumSource(Step.class)
    void send_tracingThrowsAtAStep_theRecordIsSentAndAcknowledgedRegardless_andOneLineLogged(Step step) {
        for (Throwable thrown : List.of(new IllegalStateException("a tracer's bug"), new AssertionError("an Error"))) {
            Tracer failing = mock(Tracer.class);
            Propagator propagator = mock(Propagator.class);
            Span.Builder builder = mock(Span.Builder.class, org.mockito.Mockito.RETURNS_SELF);
            Span span = mock(Span.class, org.mockito.Mockito.RETURNS_SELF);
            when(span.context()).thenReturn(mock(TraceContext.class));
            when(builder.start()).thenReturn(span);
            when(failing.spanBuilder()).thenReturn(builder);
            switch (step) {
                case START -> when(builder.start()).thenThrow(thrown);
                case INJECT -> doThrow(thrown).when(propagator).inject(any(), any(), any());
                case WITH_SPAN -> when(failing.withSpan(span)).thenThrow(thrown);
                case END -> doThrow(thrown).when(span).end();
            }
            MockProducer<String, String> acking = new MockProducer<>(true, null, new StringSerializer(),
                    new StringSerializer());
            AtomicInteger callbacks = new AtomicInteger();

            try (LogCapture log = new LogCapture(KafkaTracing.class)) {
                Future<RecordMetadata> ack = KafkaTracing.of(failing, propagator).send(acking,
                        new ProducerRecord<>("t", "k", "v"), (metadata, error) -> callbacks.incrementAndGet());

                assertThat(ack).as("%s", thrown).isDone().isNotCancelled();
                assertThat(acking.history()).hasSize(1);
                assertThat(callbacks).hasValue(1);
                assertThat(log.events()).singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.WARN);
                    assertThat(e.getFormattedMessage()).contains("tracing a record sent to t failed");
                    assertThat(e.getThrowableProxy().getClassName()).isEqualTo(thrown.getClass().getName());
                });
            }
            if (step != Step.START) {
                verify(span).end(); // the span still ends (for END: it was asked to, and threw)
            }
        }
    }

    private SpanData one(SpanKind kind) {
        List<SpanData> found = exported.getFinishedSpanItems().stream().filter(s -> s.getKind() == kind).toList();
        assertThat(found).as("spans exported: %s", exported.getFinishedSpanItems()).hasSize(1);
        return found.get(0);
    }

    private static String traceparent(ProducerRecord<?, ?> record) {
        return new String(record.headers().lastHeader("traceparent").value(), UTF_8);
    }
}
