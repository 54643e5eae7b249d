package io.purgatory;

/**
 * Binds purgatories to a metrics system: given to {@link PurgatoryBuilder#metrics},
 * {@link KeyedWaitsBuilder#metrics} or {@code bindMetrics} on a built purgatory, it is called once
 * per purgatory, registers what it wants to publish from the {@link MetricsSource}, and returns the
 * recorder of that purgatory's durations.
 *
 * <p>The core depends on no metrics library. The {@code purgatory-micrometer} module's
 * {@code MicrometerMetrics} binds to a Micrometer {@code MeterRegistry}; another system needs only
 * an implementation of this interface and of {@link MetricsRecorder}.
 */
@FunctionalInterface
public interface MetricsRecorderFactory {

    /**
     * Registers the metrics of the purgatory that {@code source} reads, and returns its recorder.
     * If it throws, nothing is bound and the exception reaches the caller of the builder's
     * {@code build()} or of {@code bindMetrics}.
     */
    MetricsRecorder create(MetricsSource source);
}
