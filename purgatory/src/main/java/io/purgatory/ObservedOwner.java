package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;

/**
 * The owner of an operation whose wait a {@link WaitObserver} watches: its engine, plus the
 * observer's handle, which the settle's booking ends exactly once. Allocated only for an observed
 * wait, so a purgatory without an observer pays nothing for it.
 */
final class ObservedOwner implements Owner {

    private final Engine engine;
    private final WaitObserver observer;
    /** The observer's handle; written by the submitting thread under the claim, before any settle reads it. */
    private Object handle;
    /** The list the operation is linked on itself (one key), else null: its home (Watchers K3). */
    Watchers list;

    ObservedOwner(Engine engine, WaitObserver observer) {
        this.engine = engine;
        this.observer = observer;
    }

    /** The wait starts: asks the observer for its handle (UserCode contains what it throws). */
    void start(WaitStart start) {
        handle = UserCode.started(observer, start, engine.name());
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
