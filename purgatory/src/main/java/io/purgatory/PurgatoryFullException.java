package io.purgatory;

/**
 * Thrown by {@link DelayedOperationPurgatory#tryCompleteElseWatch} when the purgatory already
 * holds its maximum of pending operations, or (a {@link TenantFullException}) the operation's
 * tenant holds its share. The rejected operation was not touched: it was neither tried nor
 * watched, and may be submitted again later. {@link KeyedWaits} fails the wait's future with it.
 *
 * <p>A refusal carries no stack trace: it is the purgatory's answer under overload, thrown to the
 * caller that submitted (or failing the future it holds), and its message names the purgatory and the
 * limit. Filling a trace cost about nine tenths of a refusal's CPU, paid by the flood the bound is
 * there to shed (docs/benchmarks.md, workload 14).
 */
public class PurgatoryFullException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The limit that was reached. */
    private final int maxPending;

    /** The refusal of a submission to the purgatory named {@code purgatory}, full at {@code maxPending}. */
    public PurgatoryFullException(String purgatory, int maxPending) {
        this(maxPending, "purgatory '" + purgatory + "' is full: " + maxPending + " operations pending (maxPending="
                + maxPending + ")");
    }

    /** A refusal at the limit {@code maxPending}, told by {@code message}. */
    PurgatoryFullException(int maxPending, String message) {
        super(message);
        this.maxPending = maxPending;
    }

    /** Fills no trace: see the class comment. Its cause can still be set once, as any exception's. */
    @Override
    public Throwable fillInStackTrace() {
        return this;
    }

    /** The limit that was reached: the purgatory's, or the tenant's for a {@link TenantFullException}. */
    public int maxPending() {
        return maxPending;
    }
}
