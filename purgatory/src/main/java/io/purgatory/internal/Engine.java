package io.purgatory.internal;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.internal.Watchers.WatchNode;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The machinery under every purgatory facade: submission, the visits of a key's watchers, the
 * booking of settles, admission, metrics and the close ({@link Closing}), where operations, watch
 * lists, the timer and user code meet. A facade ({@code DelayedOperationPurgatory},
 * {@code KeyedWaits}, {@code DelayedFuturePurgatory}) validates its arguments and makes one call
 * here per public call. Thread-safe; submit and settle cost O(keys), gauges O(1).
 */
public final class Engine implements Owner, RuntimeCore.Member {

    /*
     * Implementation notes.
     *
     * (N1) A submission holds an admission slot from before its claim until the settle's booking,
     *      or until it is undone: each slot is freed exactly once.
     * (N2) Kafka's four steps (try, watch, try again, the timeout) run under the submission's
     *      claim. One that fails is undone under it, off every list and the timer, uncounted, its
     *      slot freed, so the operation can be submitted again; unless a settle landed meanwhile
     *      (a cancel, a close, a cancelForKey of a key already watched): that settle stands and
     *      is booked as usual, and the failure is logged instead of thrown. The sweeps of close
     *      and cancelForKey settle submitted operations only, so none settles one being undone.
     * (N3-N5) The close: see Closing.
     * (N6) A wait with an observer's handle or a tenant has a WaitOwner for its owner, holding
     *      them: started on the submitting thread under the claim, before anything is linked;
     *      the handle ended and the tenant's slot freed once, by the settle's booking or by the
     *      undo of a failed submission.
     * (N7) Back-pressure holds back a user's submission before it takes its slot and its claim,
     *      so nothing waits for it; what the library puts on the timer never waits (RuntimeCore).
     */

    private static final Visitor CHECK = (op, ignored) -> Claims.check(op);

    private final String name;
    private final WatcherLists lists;
    private final RuntimeCore runtime;
    private final boolean ownsRuntime;
    private final boolean timed;
    private final Admission admission;
    private final UserCode.Failures failures;
    /** Watches each wait, or null: then nothing is allocated for it (N6). */
    private final UserCode.Observer observer;
    private final PurgatoryCounters counters = new PurgatoryCounters();
    private final MetricsBinding metrics;
    /** What the facade closes with the engine, after the sweep: its own resources. */
    private final Runnable closeFacade;
    private final Closing closing;

    /**
     * An engine with {@code config}, registered on its runtime; {@code closeFacade} is what its
     * facade closes with it, after the sweep.
     *
     * @throws IllegalStateException if the runtime given is closed
     */
    public Engine(EngineConfig config, Runnable closeFacade) {
        this.name = config.name();
        this.lists = new WatcherLists(config.shards(), this, counters, this::nowNanos, config.runtime().clock());
        this.runtime = config.runtime();
        this.ownsRuntime = config.ownsRuntime();
        this.timed = config.timed();
        this.metrics = new MetricsBinding(name, runtime.clock());
        this.admission = new Admission(config, counters);
        this.failures = config.failures();
        this.observer = config.observer();
        this.closeFacade = closeFacade;
        this.closing = new Closing(this, lists.all(), config.closeOutcome(), this::leaveRuntime, this::closeResources);
        runtime.register(this); // last: throws if a shared runtime is closed, leaving nothing registered
    }

    // ---- submission (N1, N2, N7) ----

    /** Submits {@code op} on one key; true iff this call completed it. */
    public boolean submit(Operation op, Object key) {
        return submit(op, key, null, null);
    }

    /**
     * Submits {@code op} on distinct {@code keys}, each at its position if {@code positions} is not
     * null (it waits until the key's position reaches it); true iff this call completed it.
     */
    public boolean submit(Operation op, Object[] keys, long[] positions) {
        boolean oneKey = keys.length == 1 && positions == null;
        return oneKey ? submit(op, keys[0], null, null) : submit(op, null, keys, positions);
    }

    /** On one key or several (exactly one of {@code key} and {@code keys}); at positions if those are given. */
    private boolean submit(Operation op, Object key, Object[] keys, long[] positions) {
        if (closing.isMarked()) {
            throw new IllegalStateException("purgatory '" + name + "' is closed");
        }
        OperationState.checkSubmittable(op, op.state); // a misuse is not a capacity rejection
        if (timed) {
            runtime.awaitBackPressure(); // (N7)
        } else {
            runtime.startDriver(); // its only work is the purge: nothing is scheduled to start it (P2)
        }
        if (closing.isMarked()) { // closed while this submission was held back
            throw new IllegalStateException("purgatory '" + name + "' is closed");
        }
        Admission.Tenant tenant = admission.take(op, key != null ? key : keys[0]);
        InProgress progress = InProgress.current();
        progress.enterCheck(); // a submission's tries are a check of their own (O4)
        try {
            return submitAdmitted(op, key, keys, positions, tenant, progress);
        } finally {
            progress.exitCheck();
        }
    }

    /** The submission once its slot is taken: the claim, the four steps, and the undo if they fail (N1, N2). */
    private boolean submitAdmitted(Operation op, Object key, Object[] keys, long[] positions, Admission.Tenant tenant,
                                   InProgress progress) {
        try {
            Claims.claimForSubmission(op, this, progress);
        } catch (RuntimeException | Error misuse) { // submitted or settled by another thread since the check
            admission.free(tenant);
            throw misuse;
        }
        WaitOwner owner = observer == null && tenant == null ? null // (N6): under the claim, before the first try
                : WaitOwner.start(this, observer, tenant, op, key != null ? new Object[] {key} : keys);
        boolean completed;
        try {
            completed = submitClaimed(op, key, keys, positions, progress);
        } catch (RuntimeException | Error failure) {
            boolean undone = undo(op, tenant);
            Claims.release(op, progress); // finishes a settle that landed meanwhile (N2)
            if (undone) {
                if (owner != null) {
                    owner.failed(op, failure);
                }
                throw failure;
            }
            UserCode.log(name, "a submission failed after another call had settled its operation; that settle"
                    + " stands", failure);
            return false;
        }
        return Claims.release(op, progress) || completed; // retries asked for, a settle made meanwhile
    }

    /** Kafka's four steps, the submission's claim held: no other thread tries the operation meanwhile. */
    private boolean submitClaimed(Operation op, Object key, Object[] keys, long[] positions, InProgress progress) {
        if (Claims.tryOnce(op, progress)) { // 1. try
            return true;
        }
        if (OperationState.isSettled(op)) {
            return false;
        }
        long now = watch(op, key, keys, positions); // 2. watch
        if (closing.isMarked()) { // raced close(), whose sweep may have missed it (N3)
            closing.settleAsClose(op);
            return false;
        }
        OperationState.markWatched(op, now != UserCode.NO_TIME, now);
        counters.watched(key != null ? 1 : keys.length);
        if (Claims.tryOnce(op, progress)) { // 3. try again
            return true;
        }
        if (timed && !OperationState.isSettled(op)) { // 4. the timeout, from the watch time: one clock read
            try {
                runtime.schedule(op, now == UserCode.NO_TIME ? now : metrics.reading(now));
            } catch (IllegalStateException timerClosed) { // it can never expire now: settle as close would
                closing.settleAsClose(op);
            }
        }
        return false;
    }

    /**
     * Links {@code op} on its keys (Watchers K3); a key that throws fails the submission. Returns its watch time: its
     * one key's activation if it made the key non-empty, else the clock after the links (never before, K8).
     */
    private long watch(Operation op, Object key, Object[] keys, long[] positions) {
        int n = key != null ? 1 : keys.length;
        long activated = UserCode.NO_TIME;
        WatchNode chain = null;
        for (int i = 0; i < n; i++) {
            Object k = key != null ? key : keys[i];
            try {
                if (key != null) {
                    activated = lists.of(k).watch(op, k);
                } else {
                    chain = positions == null ? lists.of(k).watch(op, k, chain)
                            : lists.of(k).watchAt(op, k, positions[i], chain);
                    op.watching = chain; // what is linked so far, for an undo
                }
            } catch (RuntimeException keyFailure) { // its hashCode or equals threw
                throw new IllegalArgumentException("watch key at index " + i + " failed while the operation was"
                        + " being watched (its hashCode or equals threw " + keyFailure.getClass().getName() + ")",
                        keyFailure);
            }
        }
        return activated != UserCode.NO_TIME ? activated : metrics.now();
    }

    /** Undoes a failed submission, its claim still held (N2); false if a settle landed first and stands. */
    private boolean undo(Operation op, Admission.Tenant tenant) {
        boolean wasWatched = OperationState.wasWatched(op);
        if (!OperationState.abandon(op)) {
            return false;
        }
        int unlinked = Watchers.unwatch(op);
        op.owner = null; // (O6)
        if (wasWatched) {
            counters.unwatched(unlinked);
        }
        if (timed) {
            runtime.unschedule(op);
        }
        admission.free(tenant);
        return true;
    }

    // ---- visits ----

    /**
     * Tries the operations watching {@code key} when the call starts, as {@code mode} selects them
     * at {@code position} (ALL, or NEWLY_REACHED); returns how many this call completed. The
     * span of this thread's bound on tries that its own checks ask for (O4).
     */
    public int check(Object key, Visit mode, long position) {
        InProgress progress = InProgress.current();
        progress.enterCheck();
        try {
            return visit(key, mode, position, null, CHECK);
        } finally {
            progress.exitCheck();
        }
    }

    /** Hands {@code event} to {@code visitor} with each operation on {@code key} that {@code mode} selects. */
    public int visit(Object key, Visit mode, long position, Object event, Visitor visitor) {
        return lists.of(key).visit(key, mode, position, event, visitor);
    }

    /** Cancels every submitted operation watching {@code key} (N2); returns those this call cancelled. */
    public List<Operation> cancelAll(Object key) {
        return lists.of(key).cancelAll(key);
    }

    // ---- Owner: settles, failures, expiries ----

    /** Books the settle; a WaitOwner's operation also frees its tenant's slot (N1). */
    @Override
    public void settled(Operation op, int outcome, long state) {
        admission.free(op.owner instanceof WaitOwner wait ? wait.tenant : null); // (N1)
        if (timed) {
            runtime.unschedule(op);
        }
        int unlinked = Watchers.unwatch(op);
        boolean watched = (state & OperationState.WATCHED) != 0;
        counters.settled(outcome, watched, unlinked);
        if (watched) {
            metrics.record(op, outcome, state, closing.isMarked());
        }
    }

    @Override
    public void failed(Operation op, int callback, Throwable error) {
        counters.callbackFailed(callback);
        UserCode.report(failures, name, op, callback, error);
    }

    @Override
    public void expiryBegins() {
        closing.expiryBegins();
    }

    @Override
    public void expiryEnds() {
        closing.expiryEnds();
    }

    // ---- readings ----

    @Override
    public String name() {
        return name;
    }

    /** Its bounds on pending operations, and its tenants. */
    public Admission admission() {
        return admission;
    }

    /** The clock's reading now, as operations' watch times are read (PendingList). */
    long nowNanos() {
        return metrics.now();
    }

    WatcherList[] lists() { // (PendingList)
        return lists.all();
    }

    /** Whether operations are put on the timer (they have timeouts). */
    public boolean isTimed() {
        return timed;
    }

    /** True once the purgatory began to close. */
    public boolean isClosed() {
        return closing.isMarked();
    }

    /** The counters, read in O(1). */
    public PurgatoryCounters counters() {
        return counters;
    }

    /** Whether metrics are bound. */
    public boolean hasMetrics() {
        return metrics.isBound();
    }

    /**
     * Binds the metrics with the recorder {@code factory} creates; what it throws reaches the caller.
     *
     * @throws IllegalStateException if bound already, or closed
     */
    public void bindMetrics(Supplier<UserCode.Recorder> factory) {
        Objects.requireNonNull(factory, "factory");
        closing.unlessClosed(metrics::beginBind);
        UserCode.Recorder created = null;
        try {
            created = factory.get(); // no lock held: a close need not wait for it
        } finally {
            UserCode.Recorder made = created;
            closing.withMarkHeld(() -> metrics.endBind(made, closing.isMarked()));
        }
    }

    // ---- close ----

    /** Closes the engine (Closing), its own runtime's stop within the same bound (CloseOnce); idempotent. */
    @Override
    public void close() {
        closing.close();
    }

    /** What the engine does before its close's sweep: leave the runtime, and close it if it is its own. */
    private void leaveRuntime() {
        runtime.leave(this); // its purge policy no longer runs
        if (ownsRuntime) {
            runtime.close(); // stops the driver, then its own timer and executor
        }
    }

    /** What the engine closes after the sweep: the facade's resources, then the meters. */
    private void closeResources() {
        try {
            closeFacade.run();
        } catch (RuntimeException | Error facadeFailure) {
            UserCode.log(name, "closing what it holds besides its operations failed", facadeFailure);
        }
        metrics.close();
    }

    // ---- for the runtime, the facades and tests ----

    /** The runtime's purge step for this engine. */
    @Override
    public void purgeIfNeeded() {
        lists.purgeIfNeeded();
    }

    /** The runtime this engine runs on (keyed waits schedule their windows on it). */
    public RuntimeCore runtime() {
        return runtime;
    }

    /** Checks every list's invariants and the gauges against them (tests, in quiescence). */
    public void checkInvariants() {
        lists.checkInvariants();
    }

    /** The index of {@code key}'s watcher list (tests). */
    public int listIndex(Object key) {
        return lists.index(key);
    }

    /** Expirations the executor refused, which ran on the driver instead: 0 on a shared runtime, which counts them. */
    public long expirationsRefused() {
        return ownsRuntime ? runtime.expirationsRefused() : 0L;
    }
}
