package io.purgatory.spring;

import io.purgatory.ClosePolicy;
import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import io.purgatory.MetricsRecorderFactory;
import io.purgatory.PurgatoryBuilder;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.WaitObserver;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Builders of keyed waits and purgatories on the application's shared {@link PurgatoryRuntime},
 * with the {@code purgatory.shards}, {@code purgatory.max-pending} and
 * {@code purgatory.close-policy} properties applied, the context's metrics bound (when it has
 * a {@code MeterRegistry}) and each wait observed (when it has an {@code ObservationRegistry}:
 * a {@code purgatory.wait} observation, a span with tracing). A call on the builder overrides
 * what it was given here:
 *
 * <pre>{@code
 * @Bean
 * KeyedWaits<String, Payment> payments(PurgatoryFactory purgatories) {
 *     return purgatories.keyedWaits("payments")
 *             .retainEvents(Duration.ofSeconds(30), 100_000)
 *             .build();
 * }
 * }</pre>
 *
 * <p>Declare what you build as a bean: the starter's endpoint and health contributor list the
 * beans, and the shutdown settles them. One built and kept elsewhere is still settled at shutdown,
 * by the runtime's close. Thread-safe.
 */
public final class PurgatoryFactory {

    private final PurgatoryRuntime runtime;
    private final PurgatoryProperties properties;
    private final Supplier<MetricsRecorderFactory> metrics;
    private final Supplier<WaitObserver> observer;

    /**
     * A factory of builders on {@code runtime}, configured by {@code properties}, with the metrics
     * that {@code metrics} supplies (null: none), and no observer.
     */
    public PurgatoryFactory(PurgatoryRuntime runtime, PurgatoryProperties properties,
                            Supplier<MetricsRecorderFactory> metrics) {
        this(runtime, properties, metrics, () -> null);
    }

    /**
     * The same, with the observer of each wait that {@code observer} supplies (null: none), asked
     * for each builder.
     */
    public PurgatoryFactory(PurgatoryRuntime runtime, PurgatoryProperties properties,
                            Supplier<MetricsRecorderFactory> metrics, Supplier<WaitObserver> observer) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    /**
     * A builder of keyed waits named {@code name}, on the shared runtime, with the properties,
     * metrics and observer applied. The key and value types come from the assignment of {@code build()}. A
     * close policy of {@code complete} is not applied: keyed waits have no value to complete with,
     * and keep {@code expire}.
     */
    public KeyedWaitsBuilder keyedWaits(String name) {
        KeyedWaitsBuilder builder = KeyedWaits.builder(name).runtime(runtime)
                .shards(properties.getShards())
                .maxPending(properties.getMaxPending());
        if (properties.getClosePolicy() != ClosePolicy.COMPLETE) {
            builder.closePolicy(properties.getClosePolicy());
        }
        MetricsRecorderFactory factory = metrics.get();
        if (factory != null) {
            builder.metrics(factory);
        }
        WaitObserver waitObserver = observer.get();
        if (waitObserver != null) {
            builder.observer(waitObserver);
        }
        return builder;
    }

    /**
     * A builder of a purgatory named {@code name}, on the shared runtime, with the properties,
     * metrics and observer applied. The operation type comes from the assignment of {@code build()}.
     */
    public PurgatoryBuilder<DelayedOperation> purgatory(String name) {
        PurgatoryBuilder<DelayedOperation> builder = DelayedOperationPurgatory.builder(name).runtime(runtime)
                .shards(properties.getShards())
                .maxPending(properties.getMaxPending())
                .closePolicy(properties.getClosePolicy());
        MetricsRecorderFactory factory = metrics.get();
        if (factory != null) {
            builder.metrics(factory);
        }
        WaitObserver waitObserver = observer.get();
        if (waitObserver != null) {
            builder.observer(waitObserver);
        }
        return builder;
    }

    /** The shared runtime the builders run on. */
    public PurgatoryRuntime runtime() {
        return runtime;
    }

    @Override
    public String toString() {
        return "PurgatoryFactory[" + runtime.name() + "]";
    }
}
