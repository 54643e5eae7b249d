package io.purgatory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kafka's {@code MockDelayedOperation}, instrumented: completes when {@link #completable} is set,
 * counts every callback, records their order, and notes any breach of the threading contract
 * (two tries at once, or a callback overlapping a tryComplete).
 */
class MockOperation extends DelayedOperation {

    volatile boolean completable;
    final AtomicInteger tryCompleteCalls = new AtomicInteger();
    final AtomicInteger onCompleteCalls = new AtomicInteger();
    final AtomicInteger onExpirationCalls = new AtomicInteger();
    final AtomicInteger onCancelCalls = new AtomicInteger();
    /** Set if two tryComplete calls overlapped. */
    volatile boolean triedConcurrently;
    /** Set if a callback ran during a tryComplete. */
    volatile boolean callbackUnderLockOrDuringTry;
    /** The outcome as onComplete saw it. */
    volatile Outcome outcomeSeenByOnComplete;
    private final AtomicInteger trying = new AtomicInteger();
    private final List<String> callbacks = new ArrayList<>();
    private final CountDownLatch finished;

    MockOperation(long delayMs) {
        this(delayMs, null);
    }

    /** {@code finished} (if not null) is counted down once the last callback of the outcome has run. */
    MockOperation(long delayMs, CountDownLatch finished) {
        super(delayMs);
        this.finished = finished;
    }

    @Override
    public boolean tryComplete() {
        tryCompleteCalls.incrementAndGet();
        try {
            if (trying.incrementAndGet() != 1) {
                triedConcurrently = true;
            }
            return completable && forceComplete();
        } finally {
            trying.decrementAndGet();
        }
    }

    @Override
    public void onComplete() {
        checkCallbackContext();
        outcomeSeenByOnComplete = outcome();
        onCompleteCalls.incrementAndGet();
        record("onComplete");
        if (outcome() != Outcome.EXPIRED) {
            finish();
        }
    }

    @Override
    public void onExpiration() {
        checkCallbackContext();
        onExpirationCalls.incrementAndGet();
        record("onExpiration");
        finish();
    }

    @Override
    public void onCancel() {
        checkCallbackContext();
        onCancelCalls.incrementAndGet();
        record("onCancel");
        finish();
    }

    /** The callbacks that ran, in order. */
    List<String> callbacks() {
        synchronized (callbacks) {
            return List.copyOf(callbacks);
        }
    }

    private void finish() {
        if (finished != null) {
            finished.countDown();
        }
    }

    private void checkCallbackContext() {
        if (trying.get() != 0) {
            callbackUnderLockOrDuringTry = true;
        }
    }

    private void record(String callback) {
        synchronized (callbacks) {
            callbacks.add(callback);
        }
    }
}
