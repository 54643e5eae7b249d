package io.purgatory.kafka;

import io.purgatory.timer.Clock;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;

/**
 * Where a feed reports what failed: each failure is counted, then logged at most once per 10 s
 * per kind, with the count of the others. Reporting never throws, whatever the logging backend
 * does, so a failure costs its record or its step and nothing else. Used by the feed's thread only.
 */
final class FeedErrors {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    private final FeedCounters counters;
    private final ThrottledWarning mapping;
    private final ThrottledWarning complete;
    private final ThrottledWarning consumer;
    private final ThrottledWarning interrupt;
    private final ThrottledWarning tracing;

    FeedErrors(String name, FeedCounters counters, Logger log, Clock clock) {
        this.name = name;
        this.counters = counters;
        this.mapping = new ThrottledWarning(log, clock, INTERVAL_NANOS);
        this.complete = new ThrottledWarning(log, clock, INTERVAL_NANOS);
        this.consumer = new ThrottledWarning(log, clock, INTERVAL_NANOS);
        this.interrupt = new ThrottledWarning(log, clock, INTERVAL_NANOS);
        this.tracing = new ThrottledWarning(log, clock, INTERVAL_NANOS);
    }

    /** The key or value function threw for {@code record}: the record is skipped. */
    void mapping(ConsumerRecord<?, ?> record, Throwable error) {
        counters.mappingError();
        log(mapping, "Feed '" + name + "': the record at " + at(record) + " could not be mapped to a key and value;"
                + " it is skipped", error);
    }

    /** The waits' {@code complete(key, value)} threw for {@code record}: the record is skipped. */
    void complete(ConsumerRecord<?, ?> record, Throwable error) {
        counters.completeError();
        log(complete, "Feed '" + name + "': complete(key, value) threw for the record at " + at(record)
                + " (its key's hashCode or equals?); it is skipped", error);
    }

    /** The tracer or the propagator threw while tracing {@code record}: the record is handed over regardless (F8). */
    void tracing(ConsumerRecord<?, ?> record, Throwable error) {
        log(tracing, "Feed '" + name + "': tracing the record at " + at(record) + " failed; the record is handed"
                + " over regardless", error);
    }

    /** A call of the consumer or a lookup of the broker failed: {@code what} failed, and what the feed does next. */
    void consumer(String what, Throwable error) {
        counters.consumerError();
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        log(consumer, "Feed '" + name + "' " + what, cause);
    }

    /** A mapping function or a dependent stage interrupted the feed's thread; the interrupt was cleared. */
    void interrupted() {
        log(interrupt, "Feed '" + name + "': a mapping function or a dependent stage interrupted the feed's"
                + " thread; the interrupt is cleared (close() stops the feed)", null);
    }

    private static void log(ThrottledWarning warning, String message, Throwable error) {
        try {
            warning.warn(message, error);
        } catch (Throwable loggingFailed) { // the logging backend is user code too
            // counted already; nothing else to report it to
        }
    }

    private static String at(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
