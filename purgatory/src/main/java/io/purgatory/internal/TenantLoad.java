package io.purgatory.internal;

/**
 * One tenant's load, as {@code Engine.topTenants} read it.
 *
 * @param tenant  what the tenant function returned
 * @param pending its pending operations
 * @param refused its submissions refused at its bound since it last had no pending operation
 */
public record TenantLoad(Object tenant, int pending, long refused) {
}
