package io.purgatory.kafka;

import io.micrometer.tracing.Span;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The span of one record sent through {@link KafkaTracing#send}: ended once, when the broker
 * acknowledges the record (tagged with its partition and offset) or the send fails (the error
 * recorded), before the sender's own callback runs. It is the producer's callback for the record,
 * and the sending thread ends it too if {@code send} throws. Thread-safe: the producer's I/O thread
 * and the sending thread may both try to end it.
 */
final class SendSpan implements Callback {

    private final Span span;
    private final Callback callback;
    private final KafkaTracing.Failures failures;
    private final String topic;
    private final AtomicBoolean ended = new AtomicBoolean();

    /** The started {@code span} of a record sent to {@code topic}; {@code callback} is the sender's, or null. */
    SendSpan(Span span, Callback callback, KafkaTracing.Failures failures, String topic) {
        this.span = span;
        this.callback = callback;
        this.failures = failures;
        this.topic = topic;
    }

    Span span() {
        return span;
    }

    /**
     * The producer's answer: the span ends, then the sender's callback runs (what that throws is
     * the producer's to handle, as without tracing).
     */
    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        end(metadata, exception);
        if (callback != null) {
            callback.onCompletion(metadata, exception);
        }
    }

    /**
     * Ends the span, once, with the broker's acknowledgement ({@code metadata}) or the send's
     * {@code error}; a tracer that throws costs a logged line (F10).
     */
    void end(RecordMetadata metadata, Throwable error) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        try {
            if (error != null) {
                span.error(error);
            } else if (metadata != null) {
                span.tag("messaging.destination.partition.id", Integer.toString(metadata.partition()));
                if (metadata.hasOffset()) {
                    span.tag("messaging.kafka.offset", metadata.offset());
                }
            }
        } catch (Throwable e) { // (F10)
            failures.report(topic, e);
        }
        try {
            span.end();
        } catch (Throwable e) { // (F10)
            failures.report(topic, e);
        }
    }
}
