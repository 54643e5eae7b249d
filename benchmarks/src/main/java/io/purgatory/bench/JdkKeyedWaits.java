package io.purgatory.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The yardstick of the keyed-waits workload: keyed waits as a user writes them with the JDK
 * alone, a {@link ConcurrentHashMap} of {@link CompletableFuture}s timed out by {@code orTimeout}
 * (the JDK's one shared delayer thread). What most people write: one future per key, shared by
 * every wait on it (a later waiter gets the first one's timeout, and cancelling the future cancels
 * it for all). A key's entry leaves the map as soon as its future completes, however: an event, the
 * timeout or a cancel. No early events: an event answers only the waits already there. Thread-safe.
 */
public final class JdkKeyedWaits<K, V> implements KeyedWaitsUnderTest<K, V> {

    private final ConcurrentHashMap<K, CompletableFuture<V>> waits = new ConcurrentHashMap<>();

    /**
     * The key's future, or a new one timed out after {@code timeout}. The new one is in the map
     * before its timeout is armed: armed inside {@code computeIfAbsent}, a timeout that fired at once
     * would run its removal inside the mapping function, where it removes nothing, and the entry
     * would stay for good.
     */
    @Override
    public CompletableFuture<V> await(K key, Duration timeout) {
        CompletableFuture<V> created = new CompletableFuture<>();
        CompletableFuture<V> existing = waits.putIfAbsent(key, created);
        if (existing != null) {
            return existing;
        }
        CompletableFuture<V> unused = created.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((v, e) -> waits.remove(key, created));
        return created;
    }

    /** Completes the future of {@code key}, if any: 1 if this call completed it, else 0. */
    @Override
    public int complete(K key, V value) {
        CompletableFuture<V> future = waits.remove(key); // first, so a wait after this event gets a new future
        return future != null && future.complete(value) ? 1 : 0;
    }

    @Override
    public int pending() {
        return waits.size();
    }

    /** Cancels every pending future, which takes its timeout off the delayer's queue. */
    @Override
    public void close() {
        waits.values().forEach(future -> future.cancel(false));
    }
}
