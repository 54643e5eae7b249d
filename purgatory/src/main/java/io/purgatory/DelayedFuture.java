package io.purgatory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Kafka's {@code DelayedFuture}: completes when every future in a list is done, or after a
 * timeout, failing the futures still pending with a {@link TimeoutException}; then runs the
 * response callback once. Created by {@link DelayedFuturePurgatory#tryCompleteElseWatch}.
 *
 * @param <V> the futures' value type
 */
public final class DelayedFuture<V> extends DelayedOperation {

    private final List<CompletableFuture<V>> futures;
    private final Runnable responseCallback;

    DelayedFuture(long timeoutMs, List<CompletableFuture<V>> futures, Runnable responseCallback) {
        super(timeoutMs);
        this.futures = List.copyOf(Objects.requireNonNull(futures, "futures"));
        this.responseCallback = Objects.requireNonNull(responseCallback, "responseCallback");
    }

    /** The futures this operation waits for. */
    public List<CompletableFuture<V>> futures() {
        return futures;
    }

    @Override
    protected boolean tryComplete() {
        return futures.stream().allMatch(CompletableFuture::isDone) && forceComplete();
    }

    /** Fails the futures still pending with a {@link TimeoutException}, then runs the callback. */
    @Override
    protected void onComplete() {
        TimeoutException timedOut = new TimeoutException("Request has been timed out after " + delayMs() + " ms");
        futures.forEach(future -> future.completeExceptionally(timedOut)); // a done future stays as it is
        responseCallback.run();
    }

    @Override
    protected void onExpiration() {
        // onComplete has failed the pending futures
    }

    /** Cancels the futures still pending, then runs the callback. */
    @Override
    protected void onCancel() {
        futures.forEach(future -> future.cancel(false));
        responseCallback.run();
    }
}
