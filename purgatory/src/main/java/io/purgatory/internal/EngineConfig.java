package io.purgatory.internal;

import java.util.function.BiFunction;

/**
 * What an {@link Engine} is built with, validated by the public builders.
 *
 * @param name         the purgatory's name
 * @param shards       the number of watcher lists, a power of two
 * @param maxPending   the most pending operations; 0 for no limit
 * @param closeOutcome the outcome a close settles pending operations with (OperationState's codes)
 * @param failures     where the failures of operations' callbacks go
 * @param observer     watches each wait, or null
 * @param runtime      the timer, driver and executor the engine runs on
 * @param ownsRuntime  whether the engine closes the runtime when it closes
 * @param timed        whether operations are put on the timer
 * @param tenantOf     the tenant of an operation and its first key, or null: no tenants
 * @param maxPendingPerTenant the most pending operations of one tenant, with tenants
 * @param refusals     the exceptions a refused submission throws
 */
public record EngineConfig(String name, int shards, int maxPending, int closeOutcome, UserCode.Failures failures,
                           UserCode.Observer observer, RuntimeCore runtime, boolean ownsRuntime, boolean timed,
                           BiFunction<Operation, Object, Object> tenantOf, int maxPendingPerTenant, Refusals refusals) {

    /** The exceptions of refused submissions: the API's types, made by the API's package. */
    public interface Refusals {
        /** The purgatory {@code purgatory} holds {@code maxPending} operations. */
        RuntimeException full(String purgatory, int maxPending);

        /** {@code tenant} holds {@code maxPendingPerTenant} operations of {@code purgatory}. */
        RuntimeException tenantFull(String purgatory, Object tenant, int maxPendingPerTenant);
    }
}
