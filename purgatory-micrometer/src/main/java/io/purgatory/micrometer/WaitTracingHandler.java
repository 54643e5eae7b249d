package io.purgatory.micrometer;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.purgatory.timer.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Makes the span of each wait's {@code purgatory.wait} observation with Micrometer Tracing, linked
 * to the span that answered the wait. Immutable and thread-safe. The span is made when the wait
 * ends, dated from its start (Micrometer Tracing takes a span's links only when it starts), as the
 * child of the span current where the wait was made; it links to the span current where the wait
 * ended when that one is of another trace (a {@code KafkaFeed}'s record, another request). Put it
 * before Micrometer's {@code DefaultTracingObservationHandler} in a
 * {@code FirstMatchingCompositeObservationHandler}, as the starter does on Spring Boot.
 */
public final class WaitTracingHandler implements TracingObservationHandler<WaitObservationContext> {

    /*
     * Implementation notes.
     *
     * (T20) The span is built in onStop, never before: onStart records where and when the wait
     *       started (a Started in the context, under this handler as key), onStop builds the span
     *       from it, back-dated with startTimestamp, and ends it at once. Its start is the wall
     *       clock at onStart; its end is that start plus the monotonic time since, so its duration
     *       is the wait's whatever the wall clock does meanwhile. No scope is opened
     *       (MicrometerObservations opens none): the scope, error and event callbacks have no
     *       span to act on, and the error is read from the context at onStop. The context still
     *       gets a TracingContext at onStart, with no span: Micrometer's
     *       TracingAwareMeterObservationHandler (Spring Boot's meter handler when it traces)
     *       requires one at onStop.
     * (T21) The parent is fixed at onStart, on the submitting thread: the parent observation's
     *       span, else the tracer's current span, as Micrometer's default handler takes it. With
     *       neither, the span is a root, said with setNoParent: a builder left without a parent
     *       would take the ending thread's current span, the answer's, as the wait's parent.
     * (T22) The link: to the span current on the thread that calls onStop, only when that span
     *       is in another trace than the wait's parent (or the wait has none). A wait answered
     *       within its own trace (at once, on the request's thread) has no link.
     */

    /** The key of the link's tag. */
    public static final String LINK = "purgatory.link";
    /** The value of the link's tag: the linked span answered the wait. */
    public static final String ANSWERED_BY = "answered_by";

    private static final Map<String, Object> LINK_TAGS = Map.of(LINK, ANSWERED_BY);

    private final Tracer tracer;
    private final java.time.Clock wallClock;
    private final Clock clock;

    /** Makes the waits' spans with {@code tracer}. */
    public WaitTracingHandler(Tracer tracer) {
        this(tracer, java.time.Clock.systemUTC(), Clock.system());
    }

    /** With the clocks of a test: {@code wallClock} dates the spans, {@code clock} times them. */
    WaitTracingHandler(Tracer tracer, java.time.Clock wallClock, Clock clock) {
        this.tracer = Objects.requireNonNull(tracer, "tracer");
        this.wallClock = wallClock;
        this.clock = clock;
    }

    /** Only the context of a wait's observation, and only with a tracer that traces ({@code Tracer.NOOP} does not). */
    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof WaitObservationContext && tracer != Tracer.NOOP;
    }

    /** Records the wait's parent and start time; the span is made when the wait ends. */
    @Override
    public void onStart(WaitObservationContext context) {
        Span parent = getParentSpan(context); // before the context has a TracingContext of its own (T21)
        if (parent == null) {
            parent = tracer.currentSpan();
        }
        getTracingContext(context); // (T20)
        Instant now = wallClock.instant();
        context.put(this, new Started(parent == null ? null : parent.context(),
                TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano(), clock.nanoTime()));
    }

    /** Makes the wait's span, with its link, tags and error, and ends it. */
    @Override
    public void onStop(WaitObservationContext context) {
        Started started = context.get(this);
        if (started == null) {
            return; // started before this handler was registered
        }
        long endEpochNanos = started.epochNanos + (clock.nanoTime() - started.nanoTime);
        Span.Builder builder = tracer.spanBuilder().name(getSpanName(context))
                .startTimestamp(started.epochNanos, TimeUnit.NANOSECONDS);
        if (started.parent == null) {
            builder.setNoParent(); // (T21)
        } else {
            builder.setParent(started.parent);
        }
        Span current = tracer.currentSpan();
        if (current != null && (started.parent == null
                || !current.context().traceId().equals(started.parent.traceId()))) { // (T22)
            builder.addLink(new Link(current, LINK_TAGS));
        }
        for (KeyValue value : context.getLowCardinalityKeyValues()) {
            builder.tag(value.getKey(), value.getValue());
        }
        for (KeyValue value : context.getHighCardinalityKeyValues()) {
            builder.tag(value.getKey(), value.getValue());
        }
        Throwable error = context.getError();
        if (error != null) {
            builder.error(error);
        }
        builder.start().end(endEpochNanos, TimeUnit.NANOSECONDS);
    }

    /** Nothing: the error is read from the context when the span is made. */
    @Override
    public void onError(WaitObservationContext context) {
    }

    /** Nothing: the span does not exist yet. */
    @Override
    public void onEvent(Observation.Event event, WaitObservationContext context) {
    }

    /** Nothing: a wait's observation opens no scope, and its span does not exist yet. */
    @Override
    public void onScopeOpened(WaitObservationContext context) {
    }

    /** Nothing, as {@link #onScopeOpened}. */
    @Override
    public void onScopeClosed(WaitObservationContext context) {
    }

    @Override
    public Tracer getTracer() {
        return tracer;
    }

    @Override
    public String toString() {
        return "WaitTracingHandler[" + tracer.getClass().getSimpleName() + "]";
    }

    /** Where and when a wait started: its parent's trace context (null: none) and its start on both clocks. */
    private record Started(TraceContext parent, long epochNanos, long nanoTime) {
    }
}
