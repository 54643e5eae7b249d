package io.purgatory;

import io.purgatory.timer.DaemonThreads;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Kafka's {@code DelayedFuturePurgatory}: waits for lists of futures, with a timeout. When the
 * last future of a list completes, the operation is completed on a daemon thread
 * {@code DelayedExecutor-<name>}, started on first need; a list already complete at submission
 * completes at once on the caller's thread. Each operation is its own watch key, so a completed
 * operation leaves the purgatory at once (Kafka shares one key and relies on purges).
 */
public final class DelayedFuturePurgatory implements Purgatory {

    private final DelayedOperationPurgatory<DelayedFuture<?>> purgatory;
    private ExecutorService executor; // guarded by this
    private boolean closed; // guarded by this

    /** A purgatory with the defaults of {@link DelayedOperationPurgatory#DelayedOperationPurgatory(String)}. */
    public DelayedFuturePurgatory(String name) {
        this(DelayedOperationPurgatory.builder(name));
    }

    /**
     * A purgatory built by {@code builder} (for a {@code ManualTimer}, metrics, limits...), with no
     * type witness: {@code new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("x").timer(t)
     * .reaperEnabled(false))}.
     */
    public DelayedFuturePurgatory(PurgatoryBuilder<? super DelayedFuture<?>> builder) {
        this.purgatory = builder.build();
    }

    /**
     * Waits for every future in {@code futures}, at most {@code timeoutMs}; then runs
     * {@code responseCallback} once (futures still pending at the timeout fail with a
     * {@link java.util.concurrent.TimeoutException}).
     */
    public <V> DelayedFuture<V> tryCompleteElseWatch(long timeoutMs, List<CompletableFuture<V>> futures,
                                                    Runnable responseCallback) {
        DelayedFuture<V> operation = new DelayedFuture<>(timeoutMs, futures, responseCallback);
        if (!purgatory.tryCompleteElseWatch(operation, List.of(operation))) {
            CompletableFuture<Void> unused = CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                    .whenCompleteAsync((ignored, error) -> purgatory.checkAndComplete(operation), executor());
        }
        return operation;
    }

    /**
     * {@link #tryCompleteElseWatch(long, List, Runnable)} with a {@code timeout} read by the
     * duration rule of {@link Timer}: rounded up to whole ms, saturating.
     *
     * @throws NullPointerException if an argument is null
     */
    public <V> DelayedFuture<V> tryCompleteElseWatch(Duration timeout, List<CompletableFuture<V>> futures,
                                                    Runnable responseCallback) {
        return tryCompleteElseWatch(Timer.toMs(Objects.requireNonNull(timeout, "timeout")), futures,
                responseCallback);
    }

    /** The underlying purgatory (gauges, stats, metrics). */
    public DelayedOperationPurgatory<DelayedFuture<?>> purgatory() {
        return purgatory;
    }

    @Override
    public String name() {
        return purgatory.name();
    }

    @Override
    public PurgatoryStats stats() {
        return purgatory.stats();
    }

    @Override
    public boolean isClosed() {
        return purgatory.isClosed();
    }

    @Override
    public void bindMetrics(MetricsRecorderFactory factory) {
        purgatory.bindMetrics(factory);
    }

    @Override
    public boolean hasMetrics() {
        return purgatory.hasMetrics();
    }

    /** True once the completion thread has been started (tests). */
    synchronized boolean executorStarted() {
        return executor != null;
    }

    /** Closes the purgatory (settling pending operations by its close policy) and stops the completion thread. */
    @Override
    public void close() {
        purgatory.close();
        synchronized (this) {
            closed = true;
            if (executor != null) {
                executor.shutdown();
            }
        }
    }

    private synchronized Executor executor() {
        if (closed) {
            return Runnable::run; // the purgatory settled the operation already: nothing left to wait for
        }
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(DaemonThreads.factory("DelayedExecutor-" + purgatory.name()));
        }
        return executor;
    }
}
