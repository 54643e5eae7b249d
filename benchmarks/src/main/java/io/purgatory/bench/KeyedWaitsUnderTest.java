package io.purgatory.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Keyed waits behind the shape the keyed-waits workload and {@code KeyedWaitsBenchmark} use:
 * this project's {@code KeyedWaits} and its yardstick, {@link JdkKeyedWaits}.
 *
 * @param <K> the key type
 * @param <V> the event value type
 */
public interface KeyedWaitsUnderTest<K, V> extends AutoCloseable {

    /** Ours with its defaults (no early events). */
    String OURS = "ours";
    /** Ours keeping early events: {@link OursKeyedWaits#RETAIN_WINDOW}, {@link OursKeyedWaits#RETAIN_MAX} keys. */
    String OURS_RETAIN = "ours-retain";
    /** {@link JdkKeyedWaits}. */
    String JDK = "jdk";

    /** A future of the next event on {@code key}, failed with a TimeoutException after {@code timeout}. */
    CompletableFuture<V> await(K key, Duration timeout);

    /** Hands {@code value} to the waits on {@code key}; returns how many futures it completed. */
    int complete(K key, V value);

    /** Waits pending now. */
    int pending();

    /** Ends every pending wait (cancelled or timed out) and stops the implementation's threads, if its own. */
    @Override
    void close();

    /** Creates the waits named by {@code id}: {@link #OURS}, {@link #OURS_RETAIN} or {@link #JDK}. */
    static <K, V> KeyedWaitsUnderTest<K, V> create(String id, String name) {
        return switch (id) {
            case OURS -> new OursKeyedWaits<>(name, false);
            case OURS_RETAIN -> new OursKeyedWaits<>(name, true);
            case JDK -> new JdkKeyedWaits<>();
            default -> throw new IllegalArgumentException("no keyed waits named '" + id + "'");
        };
    }
}
