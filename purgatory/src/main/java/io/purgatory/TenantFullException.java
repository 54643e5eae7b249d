package io.purgatory;

/**
 * A refusal because the operation's tenant already holds its maximum of pending operations
 * ({@code tenants(..., maxPendingPerTenant)} on the builder), while the purgatory as a whole may
 * have room: one tenant's flood is refused rather than queued, and the others' waits go on. As
 * any {@link PurgatoryFullException}, the operation was not touched.
 */
public final class TenantFullException extends PurgatoryFullException {

    private static final long serialVersionUID = 1L;

    /** The tenant, as {@link KeyRenderer#DEFAULT} showed it. */
    private final String tenant;

    /**
     * The refusal of a submission of {@code tenant} to the purgatory named {@code purgatory}, the
     * tenant holding {@code maxPendingPerTenant} of its operations.
     */
    public TenantFullException(String purgatory, String tenant, int maxPendingPerTenant) {
        super(maxPendingPerTenant, "tenant '" + tenant + "' of purgatory '" + purgatory + "' is full: "
                + maxPendingPerTenant + " operations pending (maxPendingPerTenant=" + maxPendingPerTenant + ")");
        this.tenant = tenant;
    }

    /** The tenant refused, as {@link KeyRenderer#DEFAULT} showed it. */
    public String tenant() {
        return tenant;
    }
}
