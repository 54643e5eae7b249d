package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;

/**
 * The owner of an operation whose wait a {@link WaitObserver} watches: its engine, plus the
 * handle the observer returned, which the settle's booking ends exactly once. Allocated only for a
 * wait the observer gave a handle, so a purgatory without an observer, or an observer that leaves
 * a wait unobserved, pays nothing for it.
 */
final class ObservedOwner implements Owner {

    private final Engine engine;
    private final WaitObserver observer;
    /** The observer's handle until the wait ends, then null; the claim orders its one end after the start. */
    private Object handle;
    /** The list the operation is linked on itself (one key), else null: its home (Watchers K3). */
    Watchers list;

    private ObservedOwner(Engine engine, WaitObserver observer, Object handle) {
        this.engine = engine;
        this.observer = observer;
        this.handle = handle;
    }

    /**
     * Starts the wait of {@code op}, whose submission holds the claim and has linked nothing yet:
     * asks the observer for a handle (UserCode contains what it throws) and, given one, makes an
     * owner that ends it the operation's owner (Engine N6). Returns that owner, or null: unobserved.
     */
    static ObservedOwner start(Engine engine, WaitObserver observer, DelayedOperation op, WaitStart start) {
        Object handle = UserCode.started(observer, start, engine.name());
        if (handle == null) {
            return null;
        }
        ObservedOwner owner = new ObservedOwner(engine, observer, handle);
        OperationState.reown(op, owner);
        return owner;
    }

    /** The submission failed and was undone: the wait ends, failed. */
    void failed(Throwable failure) {
        end(WaitOutcome.FAILED, failure);
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
    public void settled(DelayedOperation op, Outcome outcome, long state) {
        try {
            engine.settled(op, outcome, state);
        } finally {
            Throwable failure = op.failure();
            end(failure != null ? WaitOutcome.FAILED : engine.waitOutcome(outcome, state), failure);
        }
    }

    @Override
    public void failed(DelayedOperation op, Callback callback, Throwable error) {
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

    private void end(WaitOutcome outcome, Throwable failure) {
        Object h = handle;
        if (h != null) {
            handle = null;
            UserCode.ended(observer, h, outcome, failure, engine.name());
        }
    }
}
