package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.purgatory.timer.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries an event's trace from the instance that publishes it to the waits it answers on every
 * instance, with Micrometer Tracing (an optional dependency of this module: only this class and
 * the ones it makes use it). The publisher sends each record with {@link #send}, in a span of kind {@code PRODUCER}
 * whose context the record carries (or, sending it itself, calls {@link #inject} for the current
 * span's); a {@link KafkaFeed} built with {@link KafkaFeed.Builder#tracing tracing(...)} hands
 * each record that carries a trace context to the waits inside a span of that trace, a child of
 * the publisher's, so a wait the event answers ends with the event's span current on the feed's
 * thread, for its observer to link to. Thread-safe.
 */
public final class KafkaTracing {

    /*
     * Implementation notes.
     *
     * (F7) The record's span is a child of the publisher's span (the context in the headers: the
     *      send span of F10, or the span current at inject), of kind CONSUMER, named "process
     *      <topic>", and current on the feed's thread while the record's complete(...) runs: each
     *      wait that complete answers is ended there, and its observer finds this span as the
     *      current one (docs/kafka-feed.md, "Tracing"). Only a record with a propagation field is
     *      traced; another is handed over as without tracing.
     * (F8) Tracing never costs a record: whatever the tracer or the propagator throws is reported
     *      (FeedErrors) and the record is handed over, untraced if its span could not start; what
     *      complete(...) throws is recorded on the span and reaches the feed's dispatch (F4).
     * (F10) A record sent through send(...) gets its own span, kind PRODUCER, named "send <topic>",
     *      a child of the current span or the root of a new trace, current while the producer's
     *      send runs (its interceptors and serializers see it), and its context replaces the
     *      propagator's headers of the record. SendSpan ends it exactly once: at the producer's
     *      callback (acknowledged or failed), or when send throws. Tracing never costs the send:
     *      whatever the tracer or the propagator throws is reported (at most a line per 10 s) and
     *      the record is sent, untraced if its span could not start; what the producer's send
     *      throws is recorded on the span and reaches the caller.
     */

    private static final Logger LOG = LoggerFactory.getLogger(KafkaTracing.class);

    private static final Propagator.Setter<Headers> SETTER = (headers, key, value) -> headers.add(key,
            value.getBytes(UTF_8));
    private static final Propagator.Getter<Headers> GETTER = (headers, key) -> {
        Header header = headers.lastHeader(key);
        return header == null || header.value() == null ? null : new String(header.value(), UTF_8);
    };

    private final Tracer tracer;
    private final Propagator propagator;
    private final List<String> fields;
    private final Failures failures = new Failures();

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
        if (current != null) {
            inject(current.context(), record.headers());
        }
        return record;
    }

    /**
     * Sends {@code record} with {@code producer} in a span of its own, and returns the producer's
     * future: as {@link #send(Producer, ProducerRecord, Callback)} without a callback.
     */
    public <K, V> Future<RecordMetadata> send(Producer<K, V> producer, ProducerRecord<K, V> record) {
        return send(producer, record, null);
    }

    /**
     * Sends {@code record} with {@code producer} in a span of its own, and returns the producer's
     * future. The span is of kind {@code PRODUCER}, named {@code send <topic>}, with the
     * OpenTelemetry messaging tags ({@code messaging.system=kafka}, {@code
     * messaging.operation.type=send}, {@code messaging.destination.name}...); a child of the current
     * span, or the root of a new trace without one. Its context goes into the record's headers as
     * {@link #inject} puts the current span's, so a feed's span of the record, on every instance,
     * is its child. It is current while the producer's {@code send} runs, and ends when the broker
     * acknowledges the record (tagged {@code messaging.destination.partition.id} and {@code
     * messaging.kafka.offset}) or the send fails (the error recorded), before {@code callback}
     * (may be null) runs.
     *
     * <p>Tracing never costs the send: if the tracer or the propagator throws, the failure is
     * logged (at most one line per 10 s) and the record is sent, untraced if its span could not
     * start. What the producer's {@code send} throws is recorded on the span, which ends, and
     * reaches the caller.
     *
     * @throws NullPointerException if {@code producer} or {@code record} is null
     */
    public <K, V> Future<RecordMetadata> send(Producer<K, V> producer, ProducerRecord<K, V> record,
                                              Callback callback) {
        Objects.requireNonNull(producer, "producer");
        Objects.requireNonNull(record, "record");
        SendSpan sent = startSend(record, callback);
        if (sent == null) {
            return producer.send(record, callback);
        }
        Tracer.SpanInScope scope = null;
        try {
            scope = tracer.withSpan(sent.span());
        } catch (Throwable e) { // (F10)
            failures.report(record.topic(), e);
        }
        try {
            return producer.send(record, sent);
        } catch (Throwable e) {
            sent.end(null, e); // a send that throws calls no callback
            throw e;
        } finally {
            if (scope != null) {
                try {
                    scope.close();
                } catch (Throwable e) { // (F10)
                    failures.report(record.topic(), e);
                }
            }
        }
    }

    /** The field names the propagator reads and writes: the headers {@link #inject} sets. */
    public List<String> headers() {
        return fields;
    }

    /**
     * The span of a record about to be sent, started, its context in the record's headers; null
     * if it could not start (F10).
     */
    private SendSpan startSend(ProducerRecord<?, ?> record, Callback callback) {
        Span span;
        try {
            Span.Builder builder = tracer.spanBuilder()
                    .kind(Span.Kind.PRODUCER)
                    .name("send " + record.topic())
                    .tag("messaging.system", "kafka")
                    .tag("messaging.operation.type", "send")
                    .tag("messaging.operation.name", "send")
                    .tag("messaging.destination.name", record.topic());
            if (record.partition() != null) {
                builder.tag("messaging.destination.partition.id", record.partition().toString());
            }
            Span current = tracer.currentSpan();
            span = (current == null ? builder.setNoParent() : builder.setParent(current.context())).start();
        } catch (Throwable e) { // (F10)
            failures.report(record.topic(), e);
            return null;
        }
        try {
            inject(span.context(), record.headers());
        } catch (Throwable e) { // (F10) the span goes on; the record may carry no trace
            failures.report(record.topic(), e);
        }
        return new SendSpan(span, callback, failures, record.topic());
    }

    /** Writes {@code context} into {@code headers}, replacing whatever the propagator's fields held. */
    private void inject(TraceContext context, Headers headers) {
        for (String field : fields) {
            headers.remove(field);
        }
        propagator.inject(context, headers, SETTER);
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

    /**
     * Where the sending side reports what the tracer or the propagator threw (F10): a line at most
     * every 10 s, with the count of the others. Reporting never throws. Thread-safe: any thread
     * sends, and the producer's I/O thread ends the spans.
     */
    static final class Failures {

        @GuardedBy("this")
        private final ThrottledWarning warning = new ThrottledWarning(LOG, Clock.system(),
                TimeUnit.SECONDS.toNanos(10));

        void report(String topic, Throwable error) {
            try {
                synchronized (this) {
                    warning.warn("KafkaTracing: tracing a record sent to " + topic + " failed; the record is sent"
                            + " regardless", error);
                }
            } catch (Throwable loggingFailed) { // the logging backend is user code too
                // nothing else to report it to
            }
        }
    }
}
