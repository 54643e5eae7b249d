package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.micrometer.core.instrument.Meter;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryBuilder;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.PurgatoryStats;
import io.purgatory.micrometer.FaultyRegistry.Function;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Micrometer binding on a failing registry, as a matrix: each registry function the binding
 * calls, failing for one meter, x what it throws (a RuntimeException, an Error, a real
 * StackOverflowError) x each path (bind at build, bindMetrics later, close). Afterwards: nothing
 * half-registered, the purgatory's own state and counters as without metrics, close removed every
 * meter it could, and only a bind throws, with a message naming what failed. The gauge and counter
 * functions the registry reads are the core's O(1) reads of its counters, which throw nothing, so
 * they are not a row here.
 */
class RegistryFaultMatrixTest {

    private static final String NAME = "seam";
    /** Meters of a purgatory without retention: 3 gauges, 3 + 1 timers, 1 + 4 + 3 counters. */
    private static final int METERS = 15;

    private final ManualTimer timer = new ManualTimer();
    private final PurgatoryRuntime runtime = PurgatoryRuntime.builder("seam-runtime").timer(timer).build();
    private final FaultyRegistry registry = new FaultyRegistry();
    private final List<DelayedOperationPurgatory<Op>> built = new ArrayList<>();

    @AfterEach
    void tearDown() {
        built.forEach(DelayedOperationPurgatory::close);
        runtime.close();
        timer.close();
        registry.close();
    }

    /** What a registry function throws. */
    enum Thrown {
        RUNTIME_EXCEPTION(IllegalArgumentException.class),
        ERROR(InjectedError.class),
        STACK_OVERFLOW(StackOverflowError.class);

        final Class<? extends Throwable> type;

        Thrown(Class<? extends Throwable> type) {
            this.type = type;
        }

        /** A new one (the stack overflow is real: it is thrown by running out of stack). */
        Throwable thrown() {
            return switch (this) {
                case RUNTIME_EXCEPTION -> new IllegalArgumentException("injected");
                case ERROR -> new InjectedError();
                case STACK_OVERFLOW -> overflow(0);
            };
        }
    }

    /** The paths into the registry. */
    enum Path { BUILD, BIND_LATER, CLOSE }

    /** A registry function failing for the meters of one name (null: any), and how a bind failure names it. */
    record Point(Function function, String meter, String named) {
        @Override
        public String toString() {
            return function + (meter == null ? "" : " " + meter);
        }
    }

    static Stream<Arguments> matrix() {
        List<Point> atBind = List.of(
                new Point(Function.GET_METERS, null, "looking for meters of a purgatory named 'seam'"),
                new Point(Function.REGISTER_GAUGE, "purgatory.keys", "registering purgatory.keys{purgatory=seam}"),
                new Point(Function.REGISTER_TIMER, "purgatory.operations",
                        "registering purgatory.operations{outcome=completed,purgatory=seam}"),
                new Point(Function.REGISTER_TIMER, "purgatory.expiration.lateness",
                        "registering purgatory.expiration.lateness{purgatory=seam}"),
                new Point(Function.REGISTER_FUNCTION_COUNTER, "purgatory.expirations.refused",
                        "registering purgatory.expirations.refused{purgatory=seam}"));
        List<Point> atClose = List.of(
                new Point(Function.REMOVE, "purgatory.pending", null),
                new Point(Function.REMOVE, "purgatory.operations", null),
                new Point(Function.REMOVE, "purgatory.callback.errors", null));
        List<Arguments> rows = new ArrayList<>();
        for (Thrown thrown : Thrown.values()) {
            for (Point point : atBind) {
                rows.add(Arguments.of(point, thrown, Path.BUILD));
                rows.add(Arguments.of(point, thrown, Path.BIND_LATER));
            }
            for (Point point : atClose) {
                rows.add(Arguments.of(point, thrown, Path.CLOSE));
            }
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0} throws {1} at {2}")
    @MethodSource("matrix")
    void bindOrClose_registryFunctionThrows_nothingHalfRegisteredThePurgatoryUnharmedAndABindFailureNamesIt(Point point,
                                                                                                Thrown thrown,
                                                                                                Path path) {
        switch (path) {
            case BUILD -> build(point, thrown);
            case BIND_LATER -> bindLater(point, thrown);
            case CLOSE -> close(point, thrown);
            default -> throw new AssertionError(path);
        }
    }

    private void build(Point point, Thrown thrown) {
        registry.failing(point.function(), point.meter(), thrown::thrown);

        Throwable failure = catchThrowable(() -> track(builder().metrics(MicrometerMetrics.of(registry)).build()));

        assertBindFailure(failure, point, thrown);
        assertThat(runtime.toString()).as("the purgatory that failed to build left the runtime")
                .contains("purgatories=0");
        assertBindsAgainOnceHealed(null);
    }

    private void bindLater(Point point, Thrown thrown) {
        DelayedOperationPurgatory<Op> purgatory = track(builder().build());
        Op pending = new Op(1_000);
        purgatory.tryCompleteElseWatch(pending, List.of("k"));
        timer.advanceClock(10);
        PurgatoryStats before = purgatory.stats();
        registry.failing(point.function(), point.meter(), thrown::thrown);

        Throwable failure = catchThrowable(() -> purgatory.bindMetrics(MicrometerMetrics.of(registry)));

        assertBindFailure(failure, point, thrown);
        assertThat(purgatory.hasMetrics()).isFalse();
        assertThat(purgatory.isClosed()).isFalse();
        assertThat(purgatory.stats()).isEqualTo(before);
        pending.ready = true;
        assertThat(purgatory.checkAndComplete("k")).as("the pending operation still completes").isEqualTo(1);
        assertThat(purgatory.stats().completed()).isEqualTo(before.completed() + 1);
        assertBindsAgainOnceHealed(purgatory);
    }

    private void close(Point point, Thrown thrown) {
        DelayedOperationPurgatory<Op> purgatory = track(builder().metrics(MicrometerMetrics.of(registry)).build());
        purgatory.tryCompleteElseWatch(new Op(1_000), List.of("k"));
        registry.failing(point.function(), point.meter(), thrown::thrown);

        try (LogCapture log = new LogCapture(PurgatoryMeters.class);
             LogCapture core = new LogCapture(DelayedOperationPurgatory.class)) {
            assertThatCode(purgatory::close).doesNotThrowAnyException();

            List<ILoggingEvent> errors = log.events().stream().filter(e -> e.getLevel() == Level.ERROR).toList();
            assertThat(errors).as("the failures, reported once").hasSize(1);
            assertThat(errors.get(0).getFormattedMessage()).contains("'seam'", point.meter());
            assertThat(core.events()).as("the recorder's close threw nothing into the purgatory's").isEmpty();
        }
        assertThat(purgatory.isClosed()).isTrue();
        assertThat(purgatory.stats().expired()).as("settled by the close policy").isEqualTo(1);
        assertThat(purgatory.stats().pending()).isZero();
        assertThat(runtime.toString()).contains("purgatories=0");
        registry.heal();
        List<Meter> left = meters();
        assertThat(left).as("only the meters whose remove threw (with their histogram gauges) stay").isNotEmpty()
                .allSatisfy(m -> assertThat(m.getId().getName()).startsWith(point.meter()));
        left.forEach(registry::remove);
        assertBindsAgainOnceHealed(null);
    }

    /** A bind failure: one IllegalStateException naming the purgatory and what failed; no meter left. */
    private void assertBindFailure(Throwable failure, Point point, Thrown thrown) {
        assertThat(failure).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(point.named()).hasMessageContaining("no meter of it is registered");
        assertThat(failure.getCause()).isExactlyInstanceOf(thrown.type);
        assertThat(failure.getSuppressed()).as("no removal failed").isEmpty();
        registry.heal();
        assertThat(meters()).as("nothing half-registered").isEmpty();
    }

    /** With the registry healed, the name binds (to {@code purgatory}, or to a new one) with every meter. */
    private void assertBindsAgainOnceHealed(DelayedOperationPurgatory<Op> purgatory) {
        registry.heal();
        if (purgatory == null) {
            track(builder().metrics(MicrometerMetrics.of(registry)).build());
        } else {
            purgatory.bindMetrics(MicrometerMetrics.of(registry));
        }
        assertThat(meters().stream().filter(m -> m.getId().syntheticAssociation() == null)).hasSize(METERS);
    }

    @Test
    void bind_registrationAndThenARemovalThrow_theRemovalIsSuppressedAndTheOtherMetersLeave() {
        FaultyRegistry twice = new FaultyRegistry()
                .failing(Function.REGISTER_FUNCTION_COUNTER, "purgatory.rejected", Thrown.ERROR::thrown)
                .failing(Function.REMOVE, "purgatory.pending", () -> new IllegalStateException("remove failed"));

        Throwable failure = catchThrowable(() -> track(builder().metrics(MicrometerMetrics.of(twice)).build()));

        assertThat(failure).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("registering purgatory.rejected{purgatory=seam}")
                .hasCauseInstanceOf(InjectedError.class);
        assertThat(failure.getSuppressed()).singleElement().satisfies(s -> assertThat(s)
                .hasMessageContaining("purgatory.pending{purgatory=seam}").hasMessageContaining("stays"));
        assertThat(twice.getMeters()).extracting(m -> m.getId().getName()).containsExactly("purgatory.pending");
        twice.close();
    }

    private PurgatoryBuilder<Op> builder() {
        return DelayedOperationPurgatory.<Op>builder(NAME).runtime(runtime);
    }

    private DelayedOperationPurgatory<Op> track(DelayedOperationPurgatory<Op> purgatory) {
        built.add(purgatory);
        return purgatory;
    }

    private List<Meter> meters() {
        return registry.getMeters().stream().filter(m -> NAME.equals(m.getId().getTag("purgatory"))).toList();
    }

    private static StackOverflowError overflow(int depth) {
        return depth < Integer.MAX_VALUE ? overflow(depth + 1) : new StackOverflowError("never reached");
    }

    /** An Error no library code expects. */
    private static final class InjectedError extends Error {
        private static final long serialVersionUID = 1L;

        InjectedError() {
            super("injected");
        }
    }
}
