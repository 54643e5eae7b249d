package io.purgatory;

import java.util.List;

/**
 * What every purgatory has, whatever it holds: {@link DelayedOperationPurgatory},
 * {@link KeyedWaits} and {@link DelayedFuturePurgatory} implement it, so an integration (a
 * metrics binder, a health check, a shutdown hook) handles them all alike. Thread-safe.
 *
 * <p>{@link #close()} answers every pending operation by the purgatory's close policy and is
 * idempotent; afterwards new submissions throw {@link IllegalStateException}.
 */
public interface Purgatory extends AutoCloseable {

    /** The name given to the builder: it names the threads, the log lines and the meters' tag. */
    String name();

    /** A snapshot of the counters: pending, completed, expired, cancelled... O(1). */
    PurgatoryStats stats();

    /** True once {@link #close()} has been called, here or by a runtime it was built on. */
    boolean isClosed();

    /**
     * Binds the metrics with {@code factory}: it registers what it publishes and returns the
     * recorder of durations, which then times every operation watched from now on.
     *
     * @throws NullPointerException if {@code factory} is null
     * @throws IllegalStateException if metrics are already bound, or the purgatory is closed
     */
    void bindMetrics(MetricsRecorderFactory factory);

    /** Whether metrics are bound (and the purgatory not yet closed). */
    boolean hasMetrics();

    /**
     * The pending operations, at most {@code limit}, oldest first or soonest due first, their keys
     * shown by {@link KeyRenderer#DEFAULT} ({@code toString()} cut to 64 characters): see
     * {@link #listPending(int, PendingOrder, KeyRenderer)}.
     */
    default List<PendingOperation> listPending(int limit, PendingOrder order) {
        return listPending(limit, order, KeyRenderer.DEFAULT);
    }

    /**
     * The pending operations, at most {@code limit}, in {@code order}, each with its kind, its keys
     * as {@code keys} shows them, its age, its time left, its position and whether a check tried
     * it: a snapshot for an operator, not a view. Oldest first, it reads one shard at a time under
     * that shard's lock, walking its keys in the order they became non-empty and stopping as soon
     * as no later one can be among the first {@code limit}: about O(limit). Soonest due first, the
     * same walk while every operation has had one timeout (due order is then watch order). Once
     * timeouts differ, it reads this library's timer bucket by bucket in due order, as a step of
     * the timer's driver (it waits for the driver's next step, which a parked driver takes at once),
     * stopping once no later bucket can hold one of the first {@code limit}: O(limit + the
     * operations of the buckets read). It walks the shards instead, reading every operation, when
     * fewer than {@code limit} have a timeout, when called from an expiry on the timer's driving
     * thread, when the timer is not this library's, or when the driver took no step for 100 ms. An
     * operation whose timeout has fired and whose expiry waits for a thread is no longer on the
     * timer: the timer's read does not list it. It allocates only what it returns, and calls the
     * renderer with no lock held. An operation submitted or settled while it reads may be missed or
     * shown.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     * @throws NullPointerException if {@code order} or {@code keys} is null
     * @throws IllegalStateException if the purgatory's clock throws (the ages cannot be read)
     */
    List<PendingOperation> listPending(int limit, PendingOrder order, KeyRenderer keys);

    /**
     * With tenants ({@code tenants(...)} on the builder), the {@code limit} tenants with the most
     * pending operations, most first, each with those and its refusals; shown by
     * {@link KeyRenderer#DEFAULT}. Empty without tenants. See {@link #topTenants(int, KeyRenderer)}.
     */
    default List<TenantUsage> topTenants(int limit) {
        return topTenants(limit, KeyRenderer.DEFAULT);
    }

    /**
     * With tenants, the {@code limit} tenants with the most pending operations, most first, shown by
     * {@code tenants}: a snapshot for an operator. It walks the tenants that have pending operations
     * (O(tenants)) without a lock, allocates only what it keeps and returns, and calls the renderer
     * as user code. Empty without tenants. Refusals of every tenant are counted in
     * {@link PurgatoryStats#rejected()} and the {@code purgatory.tenant.rejected} meter.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     * @throws NullPointerException if {@code tenants} is null
     */
    List<TenantUsage> topTenants(int limit, KeyRenderer tenants);

    /**
     * Answers every pending operation by the close policy, stops what the purgatory owns and
     * removes its meters. Idempotent.
     */
    @Override
    void close();
}
