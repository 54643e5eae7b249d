package io.purgatory.internal;

/**
 * The owner of an operation whose wait an observer watches: its engine, plus the handle the
 * observer returned, which the settle's booking ends exactly once. Allocated only for a wait the
 * observer gave a handle, so a purgatory without an observer, or an observer that leaves a wait
 * unobserved, pays nothing for it.
 */
final class ObservedOwner implements Owner {

    /** How a wait ended, for an observer: the ordinals of {@code io.purgatory.WaitOutcome}. */
    static final int COMPLETED = 0;
    static final int COMPLETED_AT_ONCE = 1;
    static final int EXPIRED = 2;
    static final int CANCELLED = 3;
    static final int CLOSED = 4;
    static final int FAILED = 5;

    private final Engine engine;
    private final UserCode.Observer observer;
    /** The observer's handle until the wait ends, then null; the claim orders its one end after the start. */
    private Object handle;

    private ObservedOwner(Engine engine, UserCode.Observer observer, Object handle) {
        this.engine = engine;
        this.observer = observer;
        this.handle = handle;
    }

    /**
     * Starts the wait of {@code op}, whose submission holds the claim and has linked nothing yet:
     * asks the observer for a handle and, given one, makes an owner that ends it the operation's
     * owner (Engine N6). Returns that owner, or null: unobserved.
     */
    static ObservedOwner start(Engine engine, UserCode.Observer observer, Operation op, Object[] keys) {
        Object handle = UserCode.started(observer, engine.name(), keys, op.delayMs());
        if (handle == null) {
            return null;
        }
        ObservedOwner owner = new ObservedOwner(engine, observer, handle);
        op.owner = owner;
        return owner;
    }

    /** The submission of {@code op} failed and was undone: the wait ends, failed. */
    void failed(Operation op, Throwable failure) {
        end(op, FAILED, failure);
    }

    @Override
    public Owner engine() {
        return engine;
    }

    @Override
    public String name() {
        return engine.name();
    }

    @Override
    public void settled(Operation op, int outcome, long state) {
        try {
            engine.settled(op, outcome, state);
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
