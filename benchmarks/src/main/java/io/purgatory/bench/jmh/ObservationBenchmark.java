package io.purgatory.bench.jmh;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import io.purgatory.micrometer.MicrometerObservations;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What observing each wait costs: one keyed wait's {@code await(key, 30 s)} then
 * {@code complete(key, value)}, with no observer ({@code none}: nothing allocated for it),
 * {@code MicrometerObservations} on {@code ObservationRegistry.NOOP} ({@code noop}), on a registry
 * whose one handler does nothing ({@code handler}: the Observation machinery itself), and on a
 * registry with Micrometer's meter handler on a {@code SimpleMeterRegistry} ({@code meters}: a
 * timer and a long-task timer per wait). Keys are boxed Longs made up front. Not part of
 * {@code compare}: {@code java -jar benchmarks.jar jmh ObservationBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ObservationBenchmark {

    private static final int KEYS = 1 << 16;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Long VALUE = 42L;

    @Param({"none", "noop", "handler", "meters"})
    public String observer;

    private KeyedWaits<Long, Long> waits;
    private final Long[] keys = new Long[KEYS];
    private int next;

    @Setup
    public void setUp() {
        for (int i = 0; i < KEYS; i++) {
            keys[i] = (long) i;
        }
        KeyedWaitsBuilder builder = KeyedWaits.builder("jmh-observed-" + observer);
        switch (observer) {
            case "none" -> { }
            case "noop" -> builder.observer(MicrometerObservations.of(ObservationRegistry.NOOP));
            case "handler" -> {
                ObservationRegistry registry = ObservationRegistry.create();
                registry.observationConfig().observationHandler(new NothingHandler());
                builder.observer(MicrometerObservations.of(registry));
            }
            case "meters" -> {
                ObservationRegistry registry = ObservationRegistry.create();
                registry.observationConfig().observationHandler(
                        new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
                builder.observer(MicrometerObservations.of(registry));
            }
            default -> throw new IllegalArgumentException("observer: " + observer);
        }
        waits = builder.build();
    }

    @TearDown
    public void tearDown() {
        if (waits.pending() != 0) {
            throw new IllegalStateException(observer + ": " + waits.pending() + " waits pending, expected none");
        }
        waits.close();
    }

    @Benchmark
    public Long awaitThenComplete() {
        Long key = keys[next++ & (KEYS - 1)];
        CompletableFuture<Long> future = waits.await(key, TIMEOUT);
        waits.complete(key, VALUE);
        return future.getNow(null);
    }

    /** A handler that supports every observation and does nothing with it. */
    static final class NothingHandler implements ObservationHandler<Observation.Context> {
        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }
}
