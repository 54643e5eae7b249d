package io.purgatory;

/**
 * One tenant's share of a purgatory, as {@link Purgatory#topTenants} read it: a snapshot.
 *
 * @param tenant   the tenant, as the {@link KeyRenderer} showed it
 * @param pending  its pending operations
 * @param rejected its submissions refused at its bound ({@link TenantFullException}) since it last
 *                 had no pending operation
 */
public record TenantUsage(String tenant, int pending, long rejected) {
}
