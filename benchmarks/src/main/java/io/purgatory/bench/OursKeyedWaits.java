package io.purgatory.bench;

import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** This project's {@link KeyedWaits}, with its defaults, or keeping early events. */
final class OursKeyedWaits<K, V> implements KeyedWaitsUnderTest<K, V> {

    /** The early-event window of {@link KeyedWaitsUnderTest#OURS_RETAIN}, as in KeyedWaits' javadoc example. */
    static final Duration RETAIN_WINDOW = Duration.ofSeconds(30);
    /** The most keys whose early event {@link KeyedWaitsUnderTest#OURS_RETAIN} keeps. */
    static final int RETAIN_MAX = 100_000;

    private final KeyedWaits<K, V> waits;

    OursKeyedWaits(String name, boolean retainEvents) {
        KeyedWaitsBuilder builder = KeyedWaits.builder(name);
        if (retainEvents) {
            builder.retainEvents(RETAIN_WINDOW, RETAIN_MAX);
        }
        this.waits = builder.build();
    }

    @Override
    public CompletableFuture<V> await(K key, Duration timeout) {
        return waits.await(key, timeout);
    }

    @Override
    public int complete(K key, V value) {
        return waits.complete(key, value);
    }

    @Override
    public int pending() {
        return waits.pending();
    }

    @Override
    public void close() {
        waits.close();
    }
}
