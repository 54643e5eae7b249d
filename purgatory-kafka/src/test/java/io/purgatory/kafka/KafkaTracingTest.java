package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualClock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * KafkaTracing without a broker: what inject writes, and that tracing never costs a record (F8):
 * a tracer or propagator that throws is logged and the record is handed over regardless; what
 * the hand-over throws is recorded on the span, which still ends, and reaches the feed.
 */
class KafkaTracingTest {

    private final Tracer tracer = mock(Tracer.class);
    private final Propagator propagator = mock(Propagator.class);
    private final FeedErrors errors = new FeedErrors("f", new FeedCounters(), FeedLoop.LOG, new ManualClock());
    private final AtomicInteger handedOver = new AtomicInteger();

    KafkaTracingTest() {
        when(propagator.fields()).thenReturn(List.of("traceparent", "tracestate"));
    }

    private RecordTracing feed() {
        return KafkaTracing.of(tracer, propagator).forFeed("f", "t");
    }

    private int handOverOnce() {
        handedOver.incrementAndGet();
        return 1;
    }

    private static ConsumerRecord<byte[], byte[]> record(boolean traced) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("t", 0, 7L, "k".getBytes(UTF_8), "v".getBytes(UTF_8));
        if (traced) {
            r.headers().add("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".getBytes(UTF_8));
        }
        return r;
    }

    @Test
    void inject_withoutACurrentSpan_leavesTheRecordAlone_withOne_replacesThePropagatorsHeaders() {
        KafkaTracing tracing = KafkaTracing.of(tracer, propagator);
        ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");
        record.headers().add("traceparent", "stale".getBytes(UTF_8)).add("other", "kept".getBytes(UTF_8));

        assertThat(tracing.inject(record)).isSameAs(record);
        assertThat(record.headers().toArray()).hasSize(2);

        Span current = mock(Span.class);
        TraceContext context = mock(TraceContext.class);
        when(current.context()).thenReturn(context);
        when(tracer.currentSpan()).thenReturn(current);
        org.mockito.Mockito.doAnswer(call -> {
            Propagator.Setter<Object> setter = call.getArgument(2);
            setter.set(call.getArgument(1), "traceparent", "fresh");
            return null;
        }).when(propagator).inject(any(), any(), any());

        tracing.inject(record);

        assertThat(record.headers().headers("traceparent")).singleElement()
                .satisfies(h -> assertThat(new String(h.value(), UTF_8)).isEqualTo("fresh"));
        assertThat(new String(record.headers().lastHeader("other").value(), UTF_8)).isEqualTo("kept");
        assertThat(tracing.headers()).containsExactly("traceparent", "tracestate");
    }

    @Test
    void handOver_recordWithoutContext_isUntraced() {
        assertThat(feed().handOver(record(false), this::handOverOnce, errors)).isOne();

        assertThat(handedOver).hasValue(1);
        verify(propagator, never()).extract(any(), any());
    }

    @Test
    void aPropagatorThatThrows_costsTheTraceOnly_theRecordIsHandedOver() {
        when(propagator.extract(any(), any())).thenThrow(new IllegalStateException("bad header"));

        try (LogCapture log = new LogCapture(KafkaFeed.class)) {
            assertThat(feed().handOver(record(true), this::handOverOnce, errors)).isOne();

            assertThat(handedOver).hasValue(1);
            assertThat(log.events()).singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
                    .contains("tracing the record at t-0@7 failed"));
        }
    }

    @Test
    void aSpanThatFailsToEnd_orAScopeThatFails_costsNothingButALine() {
        Span span = tracedSpan();
        when(tracer.withSpan(span)).thenThrow(new IllegalStateException("no scope"));
        org.mockito.Mockito.doThrow(new AssertionError("end failed")).when(span).end();

        try (LogCapture log = new LogCapture(KafkaFeed.class)) {
            assertThat(feed().handOver(record(true), this::handOverOnce, errors)).isOne();

            assertThat(handedOver).hasValue(1);
            assertThat(log.events()).isNotEmpty();
        }
        verify(span).tag("purgatory.waits.answered", 1L);
    }

    @Test
    void aHandOverThatThrows_isRecordedOnTheSpan_whichEnds_andReachesTheFeed() {
        Span span = tracedSpan();
        Tracer.SpanInScope scope = mock(Tracer.SpanInScope.class);
        when(tracer.withSpan(span)).thenReturn(scope);
        IllegalArgumentException thrown = new IllegalArgumentException("key's hashCode threw");

        assertThatThrownBy(() -> feed().handOver(record(true), () -> {
            throw thrown;
        }, errors)).isSameAs(thrown);

        verify(span).error(thrown);
        verify(span).end();
        verify(scope).close();
    }

    /**
     * Micrometer Tracing is optional: no class a feed without tracing loads names one of its types
     * (only KafkaTracing does, loaded when the user names it), so the feed runs without the jar.
     */
    @Test
    void feedClasses_withoutTracing_nameNoTypeOfMicrometerTracing() throws Exception {
        for (Class<?> type : List.of(KafkaFeed.class, KafkaFeed.Builder.class, FeedLoop.class, FeedConfig.class,
                RecordTracing.class, FeedErrors.class, KafkaFeedMetrics.class)) {
            try (var in = type.getResourceAsStream("/" + type.getName().replace('.', '/') + ".class")) {
                String bytes = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
                assertThat(bytes).as(type.getName()).doesNotContain("io/micrometer/tracing");
            }
        }
        try (var in = KafkaTracing.class.getResourceAsStream("KafkaTracing.class")) {
            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1))
                    .as("the check can fail").contains("io/micrometer/tracing");
        }
    }

    /** The span the propagator's builder starts for a traced record. */
    private Span tracedSpan() {
        Span.Builder builder = mock(Span.Builder.class, org.mockito.Mockito.RETURNS_SELF);
        Span span = mock(Span.class);
        when(builder.start()).thenReturn(span);
        when(propagator.extract(any(), any())).thenReturn(builder);
        return span;
    }
}
