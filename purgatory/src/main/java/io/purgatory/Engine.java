package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.Clock;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerDriver;
import io.purgatory.timer.TimerTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The machinery under every purgatory facade: submission, the visits of a key's watchers, the
 * booking of settles, admission, metrics and the close ({@link Closing}), where operations, watch lists, the
 * timer and user code meet. A facade ({@link DelayedOperationPurgatory}, {@link KeyedWaits},
 * {@link DelayedFuturePurgatory}) validates its arguments and makes one call here per public
 * call. Thread-safe; submit and settle cost O(keys), gauges O(1).
 */
final class Engine implements Owner, PurgatoryRuntime.Member {

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
     * (N6) With an observer, a wait it gives a handle has an ObservedOwner for its owner, holding
     *      the handle: started on the submitting thread under the claim, before anything is
     *      linked, ended once by the settle's booking, or by the undo of a failed submission.
     *      Without an observer, nothing is allocated; for a wait it leaves unobserved, only its
     *      WaitStart.
     */

    private static final WatcherList.Visitor CHECK = (op, ignored) -> OperationState.check(op);

    private final String name;
    private final WatcherLists lists;
    private final PurgatoryRuntime runtime;
    private final boolean ownsRuntime;
    /** The runtime's timer, or null if operations are not timed. */
    private final Timer timer;
    private final Admission admission;
    private final OperationErrorHandler errorHandler;
    /** Watches each wait, or null: then nothing is allocated for it (N6). */
    private final WaitObserver observer;
    private final PurgatoryCounters counters = new PurgatoryCounters();
    private final MetricsBinding metrics;
    private final PurgePolicy purgePolicy;
    /** What the facade closes with the engine, after the sweep: its own resources. */
    private final Runnable closeFacade;
    private final Closing closing;

    /**
     * An engine with {@code settings} (checked for conflicts), registered on its runtime. Metrics
     * are not bound here: the facade binds them once its own readings exist.
     *
     * @throws IllegalStateException if the runtime given is closed
     */
    Engine(EngineSettings settings, Runnable closeFacade) {
        settings.checkConflicts();
        this.name = settings.name;
        this.lists = new WatcherLists(settings.shards, this, counters);
        this.runtime = settings.runtimeOrOwn(this::onTimerError);
        this.timer = settings.timerEnabled ? runtime.timer() : null;
        Clock clock = runtime.clock();
        this.metrics = new MetricsBinding(name, counters, clock);
        this.purgePolicy = new PurgePolicy(name, lists.all(), counters, clock, settings.purgeInterval);
        this.admission = new Admission(name, settings.maxPending, counters);
        Outcome closeOutcome = switch (settings.closePolicy) {
            case EXPIRE -> Outcome.EXPIRED;
            case COMPLETE -> Outcome.COMPLETED;
            case CANCEL -> Outcome.CANCELLED;
        };
        this.ownsRuntime = !settings.sharesRuntime();
        this.closing = new Closing(this, lists.all(), closeOutcome, runtime, this::leaveRuntime, this::closeResources);
        this.errorHandler = settings.errorHandler;
        this.observer = settings.observer;
        this.closeFacade = closeFacade;
        runtime.register(this); // last: throws if a shared runtime is closed, leaving nothing registered
    }

    /**
     * Binds the builder's metrics, if it was given any, reading {@code events} too; if that fails,
     * closes the engine and rethrows, so a failed build leaves nothing running.
     */
    void bindAtBuild(MetricsRecorderFactory factory, EventReadings events) {
        if (factory == null) {
            return;
        }
        try {
            bindMetrics(factory, events);
        } catch (Throwable bindFailure) { // whatever the factory throws, nothing stays running
            close();
            throw bindFailure;
        }
    }

    // ---- submission (N1, N2) ----

    /** Submits {@code op} on one key; true iff this call completed it. */
    boolean submit(DelayedOperation op, Object key) {
        return submit(op, key, null, null);
    }

    /** Submits {@code op} on distinct keys; true iff this call completed it. */
    boolean submit(DelayedOperation op, Object[] keys) {
        return keys.length == 1 ? submit(op, keys[0], null, null) : submit(op, null, keys, null);
    }

    /** Submits {@code op} to wait on {@code key} until its position reaches {@code position}. */
    boolean submitAt(DelayedOperation op, Object key, long position) {
        return submit(op, key, null, new long[] {position});
    }

    /** Submits {@code op} to wait on each of distinct {@code keys} until its position reaches its own. */
    boolean submitAt(DelayedOperation op, Object[] keys, long[] positions) {
        return keys.length == 1 ? submit(op, keys[0], null, positions) : submit(op, null, keys, positions);
    }

    /** On one key or several (exactly one of {@code key} and {@code keys}); at positions if those are given. */
    private boolean submit(DelayedOperation op, Object key, Object[] keys, long[] positions) {
        if (closing.isMarked()) {
            throw new IllegalStateException("purgatory '" + name + "' is closed");
        }
        OperationState.checkSubmittable(op, op.state); // a misuse is not a capacity rejection
        runtime.startDriver(); // before anything is admitted: a thread that cannot start leaves nothing behind
        admission.take();
        InProgress progress = InProgress.current();
        progress.enterCheck(); // a submission's tries are a check of their own (O4)
        try {
            return submitAdmitted(op, key, keys, positions, progress);
        } finally {
            progress.exitCheck();
        }
    }

    /** The submission once its slot is taken: the claim, the four steps, and the undo if they fail (N1, N2). */
    private boolean submitAdmitted(DelayedOperation op, Object key, Object[] keys, long[] positions,
                                   InProgress progress) {
        try {
            OperationState.claimForSubmission(op, this, progress);
        } catch (RuntimeException | Error misuse) { // submitted or settled by another thread since the check
            admission.free();
            throw misuse;
        }
        ObservedOwner observed = observer == null ? null // (N6): under the claim, before the first try
                : ObservedOwner.start(this, observer, op,
                        new WaitStart(name, key != null ? List.of(key) : List.of(keys), op.delayMs()));
        boolean completed;
        try {
            completed = submitClaimed(op, key, keys, positions, progress);
        } catch (RuntimeException | Error failure) {
            boolean undone = undo(op);
            OperationState.release(op, progress); // finishes a settle that landed meanwhile (N2)
            if (undone) {
                if (observed != null) {
                    observed.failed(failure);
                }
                throw failure;
            }
            UserCode.log(name, "a submission failed after another call had settled its operation; that settle"
                    + " stands", failure);
            return false;
        }
        boolean retried = OperationState.release(op, progress); // retries asked for, a settle made meanwhile
        return completed || retried;
    }

    /** Kafka's four steps, the submission's claim held: no other thread tries the operation meanwhile. */
    private boolean submitClaimed(DelayedOperation op, Object key, Object[] keys, long[] positions,
                                  InProgress progress) {
        if (OperationState.tryOnce(op, progress)) { // 1. try
            return true;
        }
        if (op.isCompleted()) {
            return false;
        }
        int n = key != null ? 1 : keys.length; // 2. watch
        for (int i = 0; i < n; i++) {
            watch(op, key != null ? key : keys[i], i, n == 1, positions);
        }
        if (closing.isMarked()) { // raced close(), whose sweep may have missed it (N3)
            closing.settleAsClose(op);
            return false;
        }
        long now = metrics.isBound() ? metrics.now() : UserCode.NO_TIME;
        OperationState.markWatched(op, now != UserCode.NO_TIME, now);
        counters.watched(n);
        if (OperationState.tryOnce(op, progress)) { // 3. try again
            return true;
        }
        if (timer != null && !op.isCompleted()) { // 4. the timeout
            try {
                timer.add(op);
            } catch (IllegalStateException timerClosed) { // it can never expire now: settle as close would
                closing.settleAsClose(op);
            }
        }
        return false;
    }

    private void watch(DelayedOperation op, Object key, int index, boolean alone, long[] positions) {
        try {
            WatcherList list = lists.of(key);
            if (positions != null) {
                list.watchAt(op, key, positions[index]);
            } else {
                list.watch(op, key, alone);
            }
        } catch (KeyReentryException reentry) { // this call came from inside a key's method (K9)
            throw reentry;
        } catch (RuntimeException keyFailure) { // its hashCode or equals threw after passing validation (K8)
            throw new IllegalArgumentException("watch key at index " + index + " failed while the operation was"
                    + " being watched (its hashCode or equals threw): " + keyFailure, keyFailure);
        }
    }

    /** Undoes a failed submission, its claim still held (N2); false if a settle landed first and stands. */
    private boolean undo(DelayedOperation op) {
        boolean wasWatched = op.isWatched();
        if (!OperationState.abandon(op)) {
            return false;
        }
        int unlinked = WatcherList.unwatchAll(op);
        OperationState.disown(op);
        if (wasWatched) {
            counters.unwatched(unlinked);
        }
        if (timer != null) {
            op.unschedule();
        }
        admission.free();
        return true;
    }

    // ---- visits ----

    /** Tries every operation watching {@code key} when the call starts; returns how many this call completed. */
    int check(Object key) {
        return checkAt(key, Visit.ALL, 0L);
    }

    /** Tries those watching {@code key} plainly and those {@code position} reaches for the first time. */
    int check(Object key, long position) {
        return checkAt(key, Visit.NEWLY_REACHED, position);
    }

    /** A check: the span of this thread's bound on tries that its own checks ask for (O4). */
    private int checkAt(Object key, Visit mode, long position) {
        InProgress progress = InProgress.current();
        progress.enterCheck();
        try {
            return visit(key, mode, position, null, CHECK);
        } finally {
            progress.exitCheck();
        }
    }

    /** Hands {@code event} to {@code visitor} with each operation on {@code key} that {@code mode} selects. */
    int visit(Object key, Visit mode, long position, Object event, WatcherList.Visitor visitor) {
        return lists.of(key).visit(key, mode, position, event, visitor);
    }

    /** Cancels every submitted operation watching {@code key} (N2); returns those this call cancelled. */
    List<DelayedOperation> cancelAll(Object key) {
        List<DelayedOperation> cancelled = new ArrayList<>();
        for (DelayedOperation op : lists.of(key).operationsOn(key)) {
            if (OperationState.settleIfSubmitted(op, Outcome.CANCELLED)) {
                cancelled.add(op);
            }
        }
        return cancelled;
    }

    // ---- Owner: settles, failures, expiries ----

    @Override
    public void settled(DelayedOperation op, Outcome outcome, long state) {
        admission.free(); // (N1)
        if (timer != null) {
            op.unschedule();
        }
        int unlinked = WatcherList.unwatchAll(op);
        boolean watched = OperationState.wasWatched(state);
        counters.settled(outcome, watched, unlinked);
        if (watched) {
            metrics.record(op, outcome, state, closing.isMarked());
        }
    }

    @Override
    public void failed(DelayedOperation op, Callback callback, Throwable error) {
        counters.callbackFailed(callback);
        UserCode.report(errorHandler, name, op, callback, error);
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

    /** True once the purgatory began to close. */
    boolean isClosed() {
        return closing.isMarked();
    }

    int pending() {
        return PurgatoryCounters.toInt(counters.pending());
    }

    int entries() {
        return PurgatoryCounters.toInt(counters.entries());
    }

    int keys() {
        return PurgatoryCounters.toInt(counters.keys());
    }

    PurgatoryStats stats() {
        return counters.snapshot(name);
    }

    boolean hasMetrics() {
        return metrics.isBound();
    }

    /**
     * Binds the metrics with {@code factory}, with the facade's {@code events} (null: none).
     *
     * @throws IllegalStateException if bound already, or closed
     */
    void bindMetrics(MetricsRecorderFactory factory, EventReadings events) {
        Objects.requireNonNull(factory, "factory");
        closing.unlessClosed(metrics::beginBind);
        MetricsRecorder created = null;
        try {
            created = metrics.create(factory, events); // no lock held: a close need not wait for it
        } finally {
            MetricsRecorder made = created;
            closing.withMarkHeld(() -> metrics.endBind(made, closing.isMarked()));
        }
    }

    // ---- close ----

    @Override
    public void close() {
        closing.close();
    }

    /** What the engine does before its close's sweep: leave the runtime, and close it if it is its own. */
    private void leaveRuntime() {
        runtime.leave(this); // its purge policy no longer runs
        if (ownsRuntime) {
            runtime.close(); // stops the reaper at once, then its own timer and executor
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

    @Override
    public void purgeIfNeeded() {
        purgePolicy.run();
    }

    /** The runtime's timer, or null if operations are not timed (keyed waits' retention schedules on it). */
    Timer timer() {
        return timer;
    }

    /** The thread driving the timer, once started: the own reaper, or the shared runtime's driver (tests). */
    TimerDriver driver() {
        return runtime.driver();
    }

    /** Empty key lists still mapped: kept for reuse, or lingering (tests). */
    long emptyKeyLists() {
        return counters.emptyLists();
    }

    /** Checks every list's invariants and the gauges against them (tests, in quiescence). */
    void checkInvariants() {
        lists.checkInvariants(counters);
    }

    /** The index of {@code key}'s watcher list (tests). */
    int listIndex(Object key) {
        return lists.index(key);
    }

    /**
     * The own timer's error handler: count the failure and log it as the timer would have. Its
     * tasks are operations, whose run() lets nothing escape, so every call is an expiration the
     * executor refused (its execute threw); SystemTimer then ran it on its own thread.
     */
    private void onTimerError(TimerTask task, Throwable error) {
        counters.expirationRefused();
        TaskErrorHandler.logging().onError(task, error);
    }
}
