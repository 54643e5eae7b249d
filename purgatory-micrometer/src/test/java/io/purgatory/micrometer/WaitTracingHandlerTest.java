package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.TracingAwareMeterObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitStart;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WaitTracingHandler} on a real OpenTelemetry SDK behind Micrometer Tracing's bridge, first
 * in a composite before Micrometer's default handler, as the starter orders them: each wait is one
 * span, the child of the span current where it was made, back-dated to its start and timed on the
 * monotonic clock, with its outcome, keys and error, and a link to the span current where it ended
 * when that span is in another trace. Without Micrometer Tracing no other class needs it.
 */
class WaitTracingHandlerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Instant STARTED = Instant.parse("2026-01-02T03:04:05.123456789Z");
    private static final AttributeKey<String> LINK = AttributeKey.stringKey(WaitTracingHandler.LINK);

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exported)).build();
    private final Tracer tracer = new OtelTracer(provider.get("wait-tracing-test"), new OtelCurrentTraceContext(),
            event -> { });
    private final ManualClock clock = new ManualClock(-5_000_000_000L); // any reading: only differences count
    private final WaitTracingHandler handler = new WaitTracingHandler(tracer,
            java.time.Clock.fixed(STARTED, ZoneOffset.UTC), clock);
    private final ObservationRegistry registry = ObservationRegistry.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ManualTimer timer = new ManualTimer();
    private final KeyedWaits<String, String> waits;
    /** The core logs what an observer throws: nothing may be logged here. */
    private final LogCapture coreLog = new LogCapture(DelayedOperationPurgatory.class);

    WaitTracingHandlerTest() {
        // As Spring Boot groups them when it traces: the tracing handlers, then its meter handler.
        registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(handler,
                new DefaultTracingObservationHandler(tracer)))
                .observationHandler(new TracingAwareMeterObservationHandler<>(
                        new DefaultMeterObservationHandler(meters), tracer));
        waits = KeyedWaits.builder("payments").timer(timer).retainEvents(Duration.ofSeconds(30), 100)
                .observer(MicrometerObservations.of(registry)).build();
    }

    @AfterEach
    void close() {
        waits.close();
        provider.close();
        coreLog.close();
        assertThat(coreLog.events()).as("what the core logged").isEmpty();
    }

    @Test
    void onStop_answeredInsideAnotherTracesSpan_theWaitIsTheRequestsChild_linkedToTheAnswer() {
        Observation request = Observation.start("http.server.requests", registry);
        Observation.Scope requestScope = request.openScope();
        CompletableFuture<String> paid = waits.await("order-42", TIMEOUT);
        requestScope.close();
        clock.advance(Duration.ofMillis(250));
        Span process = tracer.nextSpan().name("process payments").start();
        inSpan(process, () -> waits.complete("order-42", "PAID"));
        process.end();
        request.stop();

        assertThat(paid).isCompletedWithValue("PAID");
        SpanData requestSpan = one(s -> s.getName().equals("http.server.requests"));
        SpanData processSpan = one(s -> s.getName().equals("process payments"));
        SpanData wait = one(s -> s.getName().equals("payments wait"));
        assertThat(wait.getParentSpanContext().getSpanId()).isEqualTo(requestSpan.getSpanId());
        assertThat(wait.getTraceId()).isEqualTo(requestSpan.getTraceId()).isNotEqualTo(processSpan.getTraceId());
        assertThat(wait.getLinks()).singleElement().satisfies(link -> {
            assertThat(ids(link.getSpanContext())).isEqualTo(ids(processSpan.getSpanContext()));
            assertThat(link.getAttributes().get(LINK)).isEqualTo("answered_by");
        });
        assertThat(wait.getStartEpochNanos()).as("back-dated to the await").isEqualTo(epochNanos(STARTED));
        assertThat(wait.getEndEpochNanos() - wait.getStartEpochNanos()).as("timed on the monotonic clock")
                .isEqualTo(Duration.ofMillis(250).toNanos());
        assertThat(attribute(wait, "purgatory")).isEqualTo("payments");
        assertThat(attribute(wait, "outcome")).isEqualTo("completed");
        assertThat(attribute(wait, "purgatory.keys")).isEqualTo("order-42");
        assertThat(attribute(wait, "purgatory.timeout.ms")).isEqualTo("1000");
        assertThat(wait.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
    }

    @Test
    void onStart_parentOnlyATracerSpan_isTheWaitsParent() {
        Span request = tracer.nextSpan().name("request").start();
        CompletableFuture<String> paid = inSpan(request, () -> waits.await("order-1", TIMEOUT));
        waits.complete("order-1", "PAID"); // no span current here: no link
        request.end();

        assertThat(paid).isDone();
        SpanData wait = one(s -> s.getName().equals("payments wait"));
        assertThat(wait.getParentSpanContext().getSpanId()).isEqualTo(request.context().spanId());
        assertThat(wait.getTraceId()).isEqualTo(request.context().traceId());
        assertThat(wait.getLinks()).isEmpty();
    }

    @Test
    void onStop_answeredInItsOwnTrace_hasNoLink() {
        Span request = tracer.nextSpan().name("request").start();
        inSpan(request, () -> {
            waits.complete("order-2", "PAID early");
            assertThat(waits.await("order-2", TIMEOUT)).isCompletedWithValue("PAID early");
            CompletableFuture<String> later = waits.await("order-3", TIMEOUT);
            Span child = tracer.nextSpan().name("child").start(); // the same trace, another span
            inSpan(child, () -> waits.complete("order-3", "PAID"));
            child.end();
            return assertThat(later).isDone();
        });
        request.end();

        List<SpanData> spans = spans(s -> s.getName().equals("payments wait"));
        assertThat(spans).extracting(s -> attribute(s, "outcome")).containsExactly("completed.first.try",
                "completed");
        assertThat(spans).allSatisfy(s -> {
            assertThat(s.getParentSpanContext().getSpanId()).isEqualTo(request.context().spanId());
            assertThat(s.getLinks()).isEmpty();
        });
    }

    @Test
    void onStop_waitMadeOutsideAnyTrace_isARootSpan_notTheAnswersChild() {
        CompletableFuture<String> paid = waits.await("order-4", TIMEOUT);
        Span process = tracer.nextSpan().name("process payments").start();
        inSpan(process, () -> waits.complete("order-4", "PAID"));
        process.end();

        assertThat(paid).isDone();
        SpanData wait = one(s -> s.getName().equals("payments wait"));
        assertThat(wait.getParentSpanContext().isValid()).as("a root span").isFalse();
        assertThat(wait.getTraceId()).isNotEqualTo(process.context().traceId());
        assertThat(wait.getLinks()).singleElement().satisfies(link -> assertThat(link.getSpanContext().getSpanId())
                .isEqualTo(process.context().spanId()));
    }

    @Test
    void onStop_eachOtherOutcome_endsTheSpanWithIt_andWithTheErrorThatFailedIt() {
        IllegalStateException refused = new IllegalStateException("payment refused");
        CompletableFuture<String> expired = waits.await("order-5", TIMEOUT);
        clock.advance(TIMEOUT);
        timer.advanceClock(TIMEOUT.toMillis());
        CompletableFuture<String> failed = waits.await("order-6", TIMEOUT);
        waits.completeExceptionally("order-6", refused);
        CompletableFuture<String> cancelled = waits.await("order-7", TIMEOUT);
        clock.advance(Duration.ofMillis(10));
        cancelled.cancel(true);
        CompletableFuture<String> closed = waits.await("order-8", TIMEOUT);
        clock.advance(Duration.ofMillis(20));
        waits.close();

        assertThat(List.of(expired, failed, cancelled, closed)).allMatch(CompletableFuture::isCompletedExceptionally);
        List<SpanData> spans = spans(s -> s.getName().equals("payments wait"));
        assertThat(spans).extracting(s -> attribute(s, "outcome")).containsExactly("expired", "failed", "cancelled",
                "closed");
        assertThat(spans).extracting(s -> s.getEndEpochNanos() - s.getStartEpochNanos()).as("each wait's time")
                .containsExactly(TIMEOUT.toNanos(), 0L, Duration.ofMillis(10).toNanos(),
                        Duration.ofMillis(20).toNanos());
        assertThat(spans).extracting(SpanData::hasEnded).containsOnly(true);
        assertThat(spans).extracting(s -> s.getStatus().getStatusCode() == StatusCode.ERROR).as("error status")
                .containsExactly(false, true, false, false); // the others UNSET or OK, as the bridge's release sets
        assertThat(spans.get(1).getEvents()).singleElement().satisfies(e -> {
            assertThat(e.getName()).isEqualTo("exception");
            assertThat(e.getAttributes().get(AttributeKey.stringKey("exception.message"))).isEqualTo("payment refused");
        });
        assertThat(spans).allSatisfy(s -> assertThat(s.getLinks()).isEmpty());
        assertThat(meters.get("purgatory.wait").timers()).as("the meter handler timed each wait too")
                .extracting(t -> t.getId().getTag("outcome") + "=" + t.count())
                .containsExactlyInAnyOrder("expired=1", "failed=1", "cancelled=1", "closed=1");
    }

    @Test
    void supportsContext_otherObservationsAndTheNoopTracer_areLeftToTheOtherHandlers() {
        Observation other = Observation.start("other", registry);
        other.stop();

        assertThat(one(s -> s.getName().equals("other")).getParentSpanContext().isValid())
                .as("the default handler made it").isFalse();
        assertThat(handler.supportsContext(new Observation.Context())).isFalse();
        WaitObservationContext wait = new WaitObservationContext(new WaitStart("payments", List.of("k"), 1));
        assertThat(handler.supportsContext(wait)).isTrue();
        assertThat(new WaitTracingHandler(Tracer.NOOP).supportsContext(wait)).isFalse();
        assertThat(handler.getTracer()).isSameAs(tracer);
    }

    @Test
    void onStop_contextTheHandlerDidNotStart_makesNoSpan() {
        WaitObservationContext context = new WaitObservationContext(new WaitStart("payments", List.of("k"), 1));

        handler.onStop(context);

        assertThat(exported.getFinishedSpanItems()).isEmpty();
    }

    /**
     * Micrometer Tracing is optional: no class of the module but the handler (and its nested
     * types) names one of its types or the handler itself, so an application without the jar
     * never loads it. Reads every class file the module compiled.
     */
    @Test
    void classFiles_everyOtherClassOfTheModule_namesNoTypeOfMicrometerTracing() throws Exception {
        Path classes = Path.of(WaitTracingHandler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> checked = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString();
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                if (name.startsWith("io/purgatory/micrometer/WaitTracingHandler")) {
                    assertThat(bytes).as("the check can fail").contains("io/micrometer/tracing");
                } else {
                    checked.add(name);
                    assertThat(bytes).as(name).doesNotContain("io/micrometer/tracing")
                            .doesNotContain("WaitTracingHandler");
                }
            }
        }
        assertThat(checked).contains("io/purgatory/micrometer/MicrometerObservations.class",
                "io/purgatory/micrometer/WaitObservationContext.class", "module-info.class");
    }

    /** Runs {@code action} with {@code span} current on this thread, and returns what it returned. */
    private <T> T inSpan(Span span, Supplier<T> action) {
        Tracer.SpanInScope scope = tracer.withSpan(span);
        try {
            return action.get();
        } finally {
            scope.close();
        }
    }

    private List<SpanData> spans(Predicate<SpanData> which) {
        return exported.getFinishedSpanItems().stream().filter(which).toList();
    }

    private SpanData one(Predicate<SpanData> which) {
        List<SpanData> found = spans(which);
        assertThat(found).as("spans exported: %s", exported.getFinishedSpanItems()).hasSize(1);
        return found.get(0);
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static String ids(SpanContext context) {
        return context.getTraceId() + "/" + context.getSpanId();
    }

    private static long epochNanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }
}
