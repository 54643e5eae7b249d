package io.purgatory;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import io.purgatory.internal.Visit;
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
 * completes at once on the caller's thread.
 *
 * <pre>{@code
 * DelayedFuturePurgatory acks = new DelayedFuturePurgatory("acks");
 *
 * // answers once both replicas acknowledged, or after 5 s (the acks still pending then fail)
 * List<CompletableFuture<Long>> replicas = List.of(replica1, replica2);
 * acks.tryCompleteElseWatch(Duration.ofSeconds(5), replicas,
 *         () -> reply.complete(replicas.stream().noneMatch(CompletableFuture::isCompletedExceptionally)));
 * }</pre>
 *
 * <p>Each operation is its own watch key, so a completed
 * operation leaves the purgatory at once (Kafka shares one key and relies on purges).
 * Thread-safe; {@link #close()}, or the close of the runtime it was built on, settles the pending
 * operations by the close policy and stops the completion thread.
 */
public final class DelayedFuturePurgatory extends EngineFacade {

    @GuardedBy("this")
    private ExecutorService executor;

    /** A purgatory with the defaults of {@link DelayedOperationPurgatory#DelayedOperationPurgatory(String)}. */
    public DelayedFuturePurgatory(String name) {
        this(DelayedOperationPurgatory.builder(name));
    }

    /**
     * A purgatory built by {@code builder} (for a {@code ManualTimer}, metrics, limits...), with no
     * type witness: {@code new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("x").timer(t))}.
     */
    public DelayedFuturePurgatory(PurgatoryBuilder<? super DelayedFuture<?>> builder) {
        super(builder.settings);
    }

    /**
     * Waits for every future in {@code futures}, at most {@code timeoutMs}; then runs
     * {@code responseCallback} once (futures still pending at the timeout fail with a
     * {@link java.util.concurrent.TimeoutException}).
     */
    public <V> DelayedFuture<V> tryCompleteElseWatch(long timeoutMs, List<CompletableFuture<V>> futures,
                                                    Runnable responseCallback) {
        DelayedFuture<V> operation = new DelayedFuture<>(timeoutMs, futures, responseCallback);
        if (!engine.submit(operation, operation)) {
            CompletableFuture<Void> unused = CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                    .whenCompleteAsync((ignored, error) -> engine.check(operation, Visit.ALL, 0L), executor());
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
        return tryCompleteElseWatch(Timer.toMs(Objects.requireNonNull(timeout, "timeout")), futures, responseCallback);
    }

    /** True once the completion thread has been started (tests). */
    synchronized boolean executorStarted() {
        return executor != null;
    }

    /** True once the completion thread was told to stop (tests). */
    synchronized boolean executorStopped() {
        return executor != null && executor.isShutdown();
    }

    /** The engine's close, after its sweep: nothing is left to wait for. */
    @Override
    synchronized void engineClosed() {
        if (executor != null) {
            executor.shutdown();
        }
    }

    private synchronized Executor executor() {
        if (engine.isClosed()) { // marked before the sweep and this facade's engineClosed, its last step
            return Runnable::run; // the engine settled the operation already: nothing left to wait for
        }
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(DaemonThreads.factory("DelayedExecutor-" + engine.name()));
        }
        return executor;
    }
}
