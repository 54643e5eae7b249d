package io.purgatory.micrometer;

import io.purgatory.DelayedOperation;

/** An operation that completes once {@link #ready} is set, and throws from a callback if told to. */
class Op extends DelayedOperation {
    volatile boolean ready;
    volatile boolean throwOnComplete;

    Op(long delayMs) {
        super(delayMs);
    }

    @Override
    protected boolean tryComplete() {
        return ready && forceComplete();
    }

    @Override
    protected void onComplete() {
        if (throwOnComplete) {
            throw new IllegalStateException("onComplete failed (on purpose)");
        }
    }

    @Override
    protected void onExpiration() {
    }
}
