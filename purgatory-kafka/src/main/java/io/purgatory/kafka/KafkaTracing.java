package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import java.util.List;
import java.util.Objects;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Carries an event's trace from the instance that publishes it to the waits it answers on every
 * instance, with Micrometer Tracing (an optional dependency of this module: only this class uses
 * it). The publisher calls {@link #inject} on each record; a {@link KafkaFeed} built with
 * {@link KafkaFeed.Builder#tracing tracing(...)} hands each record that carries a trace context
 * to the waits inside a span of that trace, so a wait the event answers ends with the event's
 * span current on the feed's thread, for its observer to link to. Immutable and thread-safe.
 */
public final class KafkaTracing {

    /*
     * Implementation notes.
     *
     * (F7) The record's span is a child of the publisher's span (the context in the headers), of
     *      kind CONSUMER, named "process <topic>", and current on the feed's thread while the
     *      record's complete(...) runs: each wait that complete answers is ended there, and its
     *      observer finds this span as the current one (docs/kafka-feed.md, "Tracing"). Only a
     *      record with a propagation field is traced; another is handed over as without tracing.
     * (F8) Tracing never costs a record: whatever the tracer or the propagator throws is reported
     *      (FeedErrors) and the record is handed over, untraced if its span could not start; what
     *      complete(...) throws is recorded on the span and reaches the feed's dispatch (F4).
     */

    private static final Propagator.Setter<Headers> SETTER = (headers, key, value) -> headers.add(key,
            value.getBytes(UTF_8));
    private static final Propagator.Getter<Headers> GETTER = (headers, key) -> {
        Header header = headers.lastHeader(key);
        return header == null || header.value() == null ? null : new String(header.value(), UTF_8);
    };

    private final Tracer tracer;
    private final Propagator propagator;
    private final List<String> fields;

    private KafkaTracing(Tracer tracer, Propagator propagator) {
        this.tracer = tracer;
        this.propagator = propagator;
        this.fields = List.copyOf(propagator.fields());
    }

    /**
     * Tracing with {@code tracer} and {@code propagator}: with OpenTelemetry's defaults, the W3C
     * {@code traceparent} and {@code tracestate} headers.
     */
    public static KafkaTracing of(Tracer tracer, Propagator propagator) {
        return new KafkaTracing(Objects.requireNonNull(tracer, "tracer"), Objects.requireNonNull(propagator,
                "propagator"));
    }

    /**
     * Puts the current span's trace context into {@code record}'s headers, replacing any the
     * propagator's fields had, and returns {@code record}; without a current span it is returned
     * unchanged. Call it on the thread that publishes the event, inside the span that does.
     */
    public <K, V> ProducerRecord<K, V> inject(ProducerRecord<K, V> record) {
        Objects.requireNonNull(record, "record");
        Span current = tracer.currentSpan();
        if (current == null) {
            return record;
        }
        for (String field : fields) {
            record.headers().remove(field);
        }
        propagator.inject(current.context(), record.headers(), SETTER);
        return record;
    }

    /** The field names the propagator reads and writes: the headers {@link #inject} sets. */
    public List<String> headers() {
        return fields;
    }

    /** How the feed named {@code feed}, reading {@code topic}, hands its records over (F7, F8). */
    RecordTracing forFeed(String feed, String topic) {
        return (record, handOver, errors) -> handOver(feed, topic, record, handOver, errors);
    }

    private int handOver(String feed, String topic, ConsumerRecord<byte[], byte[]> record, IntSupplier handOver,
                         FeedErrors errors) {
        Span span = start(feed, topic, record, errors);
        if (span == null) {
            return handOver.getAsInt();
        }
        Tracer.SpanInScope scope = null;
        try {
            scope = tracer.withSpan(span);
        } catch (Throwable e) { // (F8)
            errors.tracing(record, e);
        }
        int answered;
        try {
            answered = handOver.getAsInt();
        } catch (Throwable e) {
            finish(span, scope, record, -1, e, errors);
            throw e;
        }
        finish(span, scope, record, answered, null, errors);
        return answered;
    }

    /** The record's span, started, if the record carries a trace context; else null (F7, F8). */
    private Span start(String feed, String topic, ConsumerRecord<byte[], byte[]> record, FeedErrors errors) {
        try {
            if (!carriesContext(record.headers())) {
                return null;
            }
            return propagator.extract(record.headers(), GETTER)
                    .kind(Span.Kind.CONSUMER)
                    .name("process " + topic)
                    .tag("messaging.system", "kafka")
                    .tag("messaging.operation.type", "process")
                    .tag("messaging.destination.name", topic)
                    .tag("messaging.destination.partition.id", Integer.toString(record.partition()))
                    .tag("messaging.kafka.offset", record.offset())
                    .tag("purgatory.feed", feed)
                    .start();
        } catch (Throwable e) {
            errors.tracing(record, e);
            return null;
        }
    }

    private boolean carriesContext(Headers headers) {
        for (String field : fields) {
            if (headers.lastHeader(field) != null) {
                return true;
            }
        }
        return false;
    }

    private static void finish(Span span, Tracer.SpanInScope scope, ConsumerRecord<byte[], byte[]> record,
                               int answered, Throwable failure, FeedErrors errors) {
        try {
            if (scope != null) {
                scope.close();
            }
        } catch (Throwable e) { // (F8)
            errors.tracing(record, e);
        }
        try {
            if (failure != null) {
                span.error(failure);
            } else {
                span.tag("purgatory.waits.answered", answered);
            }
        } catch (Throwable e) { // (F8)
            errors.tracing(record, e);
        }
        try {
            span.end();
        } catch (Throwable e) { // (F8)
            errors.tracing(record, e);
        }
    }
}
