package io.purgatory.bench;

import java.util.List;

/**
 * One purgatory implementation behind the shape the workloads use. Each adapter is a thin
 * pass-through: Kafka's {@code DelayedOperationPurgatory(name, brokerId)} and ours with its
 * defaults (both: own timer with 1 ms tick and 20 buckets, 512 shards, purge interval 1000, reaper on).
 */
public interface PurgatoryUnderTest extends AutoCloseable {

    Impl impl();

    /** A new operation running {@code body}, not yet submitted. */
    Completable newOperation(OpBody body, long delayMs);

    /**
     * Tries {@code operation}, else watches it on {@code keys} and on the timer; true iff completed
     * by this call. An operation already completed (TestPurgatoryPerformance's completion thread can
     * force-complete one before it is submitted) is not submitted: false. Kafka would accept it and
     * do nothing; ours rejects it with IllegalStateException, which the adapter turns into false.
     */
    boolean tryCompleteElseWatch(Completable operation, List<BenchKey> keys);

    /** Tries the operations watching {@code key}; returns how many this call completed. */
    int checkAndComplete(BenchKey key);

    /**
     * Watches {@code operation} on {@code key} until the key's position reaches {@code position}.
     * Implementations without positioned waits (Kafka's) watch it plainly.
     */
    default boolean tryCompleteElseWatchAt(Completable operation, BenchKey key, long position) {
        return tryCompleteElseWatch(operation, List.of(key));
    }

    /** As the single-key form, at {@code positions[i]} on {@code keys.get(i)}. */
    default boolean tryCompleteElseWatchAt(Completable operation, List<BenchKey> keys, long[] positions) {
        return tryCompleteElseWatch(operation, keys);
    }

    /** The key's position is now {@code position}: without positioned waits, a try-all check. */
    default int checkAndComplete(BenchKey key, long position) {
        return checkAndComplete(key);
    }

    /** The watched gauge (Kafka: PurgatorySize). */
    int watched();

    /** The pending gauge (Kafka: NumDelayedOperations). */
    int numDelayed();

    /** Shuts the purgatory and its threads down. */
    @Override
    void close();

    /**
     * Creates a purgatory of {@code impl}: {@link Impl#OURS}, {@link Impl#KAFKA}, the acks
     * {@link Impl#FLOOR} or the {@link Impl#PROTO}type.
     */
    static PurgatoryUnderTest create(Impl impl, String name) {
        return switch (impl) {
            case OURS -> new OursPurgatory(name);
            case KAFKA -> new KafkaPurgatory(name);
            case FLOOR -> new FloorPurgatory();
            case PROTO -> new ProtoPurgatory(name);
            default -> throw new IllegalArgumentException("no purgatory for " + impl);
        };
    }
}
