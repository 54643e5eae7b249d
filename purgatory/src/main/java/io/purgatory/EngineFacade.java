package io.purgatory;

import io.purgatory.internal.Engine;
import java.util.List;

/**
 * What {@link DelayedOperationPurgatory} and {@link DelayedFuturePurgatory} share of
 * {@link Purgatory}: each read, bind and close is its engine's, written once here.
 */
abstract class EngineFacade implements Purgatory {

    final Engine engine;

    /** The facade of a new engine with {@code settings}, its metrics bound if the builder was given any. */
    EngineFacade(EngineSettings settings) {
        this.engine = new Engine(settings.config(), this::engineClosed);
        Bridges.bindAtBuild(engine, settings.metrics, null);
    }

    /** The engine's close, after its sweep: what the facade holds beside the engine goes too (nothing here). */
    void engineClosed() {
        // the engine holds everything this facade has
    }

    @Override
    public List<PendingOperation> listPending(int limit, PendingOrder order, KeyRenderer keys) {
        return OperatorViews.listPending(engine, limit, order, keys);
    }

    @Override
    public List<TenantUsage> topTenants(int limit, KeyRenderer tenants) {
        return OperatorViews.topTenants(engine, limit, tenants);
    }

    /** A snapshot of this purgatory's counters. O(1). */
    @Override
    public PurgatoryStats stats() {
        return Bridges.stats(engine);
    }

    /**
     * Binds this purgatory's metrics with {@code factory} (as the builder's {@code metrics} would
     * have): it registers what it publishes and returns the recorder of durations, which then
     * times every operation watched from now on. For a purgatory built elsewhere, such as a bean
     * a framework binds after it is built.
     *
     * @throws NullPointerException if {@code factory} is null
     * @throws IllegalStateException if metrics are already bound, or the purgatory is closed
     */
    @Override
    public void bindMetrics(MetricsRecorderFactory factory) {
        Bridges.bind(engine, factory, null);
    }

    /** The number of pending operations (watched, not yet settled) of this purgatory. O(1). */
    public int numDelayed() {
        return engine.counters().pending();
    }

    /** Whether metrics are bound (and not yet closed). */
    @Override
    public boolean hasMetrics() {
        return engine.hasMetrics();
    }

    /** The name given to the builder: it names the threads, the log lines and the meters' tag. */
    @Override
    public String name() {
        return engine.name();
    }

    /** Whether {@link #close()} has been called, here or by the runtime the purgatory was built on. */
    @Override
    public boolean isClosed() {
        return engine.isClosed();
    }

    /**
     * Closes the purgatory: stops its reaper at once, settles every pending operation by the
     * close policy (default: expires them, on this thread; an operation whose try is running on
     * another thread is answered there, as soon as its try returns), closes the timer if it is the
     * purgatory's own, and removes the meters; a {@link DelayedFuturePurgatory} also stops its
     * completion thread. It returns once the callbacks of what it settled,
     * and of expiries already running on other threads, have run (waiting at most 10 seconds for
     * those on other threads). Called from a callback, or from any code the library called, it
     * waits for nothing on other threads, which may be waiting for it: it settles what it can and
     * returns, and the callbacks of what it settled run before it returns. On a
     * shared {@link PurgatoryRuntime} it leaves the runtime's timer and threads running for the
     * other purgatories, and only leaves the runtime. Idempotent. Afterwards
     * {@code tryCompleteElseWatch} throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + engine.name() + ", pending=" + engine.counters().pending() + "]";
    }

    /** The engine under this facade (tests). */
    Engine engine() {
        return engine;
    }
}
