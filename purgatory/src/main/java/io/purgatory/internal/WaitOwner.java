package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;

/**
 * The owner of a wait that carries something of its own: its engine, plus the handle an observer
 * returned for it, or its tenant's slot, or both; the settle's booking (or the undo of its failed
 * submission) ends the one and frees the other exactly once. Allocated only for a wait that has
 * either, so a purgatory with neither an observer nor tenants pays nothing for it.
 */
final class WaitOwner implements Owner {

    /** How a wait ended, for an observer: the ordinals of {@code io.purgatory.WaitOutcome}. */
    static final int COMPLETED = 0;
    static final int COMPLETED_AT_ONCE = 1;
    static final int EXPIRED = 2;
    static final int CANCELLED = 3;
    static final int CLOSED = 4;
    static final int FAILED = 5;

    /** The engine it wraps. */
    private final Owner engine;
    private final UserCode.Observer observer;
    /** The observer's handle until the wait ends, then null; the claim orders its one end after the start. */
    private Object handle;
    /** Its tenant's slots, freed with the purgatory's by the settle's booking (Admission S1); or null. */
    final Admission.Tenant tenant;

    private WaitOwner(Owner engine, UserCode.Observer observer, Object handle, Admission.Tenant tenant) {
        this.engine = engine;
        this.observer = observer;
        this.handle = handle;
        this.tenant = tenant;
    }

    /**
     * Starts the wait of {@code op}, whose submission holds the claim and has linked nothing yet:
     * asks the observer, if any, for a handle and, given one or a {@code tenant}, makes an owner
     * that holds them the operation's owner (Engine N6). Returns that owner, or null.
     */
    static WaitOwner start(Owner engine, UserCode.Observer observer, Admission.Tenant tenant, Operation op,
                           Object[] keys) {
        Object handle = observer == null ? null : UserCode.started(observer, engine.name(), keys, op.delayMs());
        if (handle == null && tenant == null) {
            return null;
        }
        WaitOwner owner = new WaitOwner(engine, observer, handle, tenant);
        op.owner = owner;
        return owner;
    }

    /** The submission of {@code op} failed and was undone, its slots freed: the wait ends, failed. */
    void failed(Operation op, Throwable failure) {
        end(op, FAILED, failure);
    }

    @Override
    public Owner engine() {
        return engine;
    }

    @Override
    public Object tenant() {
        return tenant == null ? null : tenant.id;
    }

    @Override
    public String name() {
        return engine.name();
    }

    @Override
    public void settled(Operation op, int outcome, long state) {
        try {
            engine.settled(op, outcome, state); // it frees the tenant's slot too
        } finally {
            end(op, end(outcome, state), null);
        }
    }

    @Override
    public void failed(Operation op, int callback, Throwable error) {
        engine.failed(op, callback, error);
    }

    @Override
    public void expiryBegins() {
        engine.expiryBegins();
    }

    @Override
    public void expiryEnds() {
        engine.expiryEnds();
    }

    private void end(Operation op, int end, Throwable failure) {
        Object h = handle;
        if (h != null) {
            handle = null;
            UserCode.ended(observer, h, op, end, failure, engine.name());
        }
    }

    /** How a wait of word {@code state} settled with {@code outcome} ended, for an observer (Engine N6). */
    private static int end(int outcome, long state) {
        if ((state & OperationState.BY_CLOSE) != 0) { // (O9)
            return CLOSED;
        }
        return switch (outcome) {
            case OperationState.COMPLETED -> (state & OperationState.WATCHED) != 0 ? COMPLETED : COMPLETED_AT_ONCE;
            case OperationState.EXPIRED -> EXPIRED;
            default -> CANCELLED;
        };
    }
}
