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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The machinery under every purgatory facade: submission, the visits of a key's watchers, the
 * booking of settles, admission, metrics and the close sweep, where operations, watch lists, the
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
     * (N3) close marks `closed`, then sweeps every list. A submission that links after the sweep
     *      read its list sees the mark before its second try and settles itself as close would.
     * (N4) close returns once every operation the sweep found settled has finished (O5) and no
     *      expiry of this engine is in flight on another thread, or after CloseSweep.CLOSE_WAIT_NANOS.
     *      It never waits for work on its own stack (InProgress): a close from a callback or a
     *      try would wait for itself.
     * (N5) Only the first close does the work, holding no lock while it joins the reaper; another
     *      waits for it (bounded), unless it may be what the first waits for (the driver, a
     *      thread in a try, a callback or an expiry). A close that stopped part way (a
     *      StackOverflowError from the caller's own deep stack) leaves `swept` clear, and the
     *      next close sweeps again: settles are idempotent.
     * (N6) With an observer, a wait it gives a handle has an ObservedOwner for its owner, holding
     *      the handle: started on the submitting thread under the claim, before anything is
     *      linked, ended once by the settle's booking, or by the undo of a failed submission.
     *      Without an observer, nothing is allocated; for a wait it leaves unobserved, only its
     *      WaitStart.
     */

    private static final WatcherList.Visitor CHECK = (op, ignored) -> OperationState.check(op);

    private final String name;
    private final WatcherList[] lists;
    /** Shift taking a list's index from the top bits of a key's mixed hash (see listIndex). */
    private final int listShift;
    private final PurgatoryRuntime runtime;
    private final boolean ownsRuntime;
    /** The runtime's timer, or null if operations are not timed. */
    private final Timer timer;
    private final Admission admission;
    private final Outcome closeOutcome;
    private final OperationErrorHandler errorHandler;
    /** Watches each wait, or null: then nothing is allocated for it (N6). */
    private final WaitObserver observer;
    private final PurgatoryCounters counters = new PurgatoryCounters();
    private final MetricsBinding metrics;
    private final PurgePolicy purgePolicy;
    /** What the facade closes with the engine, after the sweep: its own resources. */
    private final Runnable closeFacade;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ReentrantLock closeLock = new ReentrantLock();
    /** Expiries of this engine's operations running now (N4). */
    private final AtomicInteger expiring = new AtomicInteger();
    /** Counted down when the first close has done its work, or stopped part way (N5). */
    private final CountDownLatch closedFully = new CountDownLatch(1);
    /** Set once a close swept every list; until then another close sweeps again (N5). */
    private volatile boolean swept;

    /**
     * An engine with {@code settings} (checked for conflicts), registered on its runtime. Metrics
     * are not bound here: the facade binds them once its own readings exist.
     *
     * @throws IllegalStateException if the runtime given is closed
     */
    Engine(EngineSettings settings, Runnable closeFacade) {
        settings.checkConflicts();
        this.name = settings.name;
        this.lists = new WatcherList[settings.shards];
        this.listShift = 32 - Integer.numberOfTrailingZeros(settings.shards); // shards is a power of two
        for (int i = 0; i < lists.length; i++) {
            lists[i] = new WatcherList(this, counters);
        }
        this.runtime = settings.runtimeOrOwn(this::onTimerError);
        this.ownsRuntime = !settings.sharesRuntime();
        this.timer = settings.timerEnabled ? runtime.timer() : null;
        Clock clock = runtime.clock();
        this.metrics = new MetricsBinding(name, counters, clock);
        this.purgePolicy = new PurgePolicy(name, lists, counters, clock, settings.purgeInterval);
        this.admission = new Admission(name, settings.maxPending, counters);
        this.closeOutcome = switch (settings.closePolicy) {
            case EXPIRE -> Outcome.EXPIRED;
            case COMPLETE -> Outcome.COMPLETED;
            case CANCEL -> Outcome.CANCELLED;
        };
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
        if (closed.get()) {
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
        if (closed.get()) { // raced close(), whose sweep may have missed it (N3)
            OperationState.settleForClose(op, closeOutcome);
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
                OperationState.settleForClose(op, closeOutcome);
            }
        }
        return false;
    }

    private void watch(DelayedOperation op, Object key, int index, boolean alone, long[] positions) {
        try {
            WatcherList list = listFor(key);
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
        return listFor(key).visit(key, mode, position, event, visitor);
    }

    /** Cancels every submitted operation watching {@code key} (N2); returns those this call cancelled. */
    List<DelayedOperation> cancelAll(Object key) {
        List<DelayedOperation> cancelled = new ArrayList<>();
        for (DelayedOperation op : listFor(key).operationsOn(key)) {
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
            metrics.record(op, outcome, state, closed.get());
        }
    }

    /** How a wait of word {@code state} settled with {@code outcome} ended, for an observer (N6). */
    WaitOutcome waitOutcome(Outcome outcome, long state) {
        if (OperationState.wasSettledByClose(state)) { // (O9)
            return WaitOutcome.CLOSED;
        }
        return switch (outcome) {
            case COMPLETED -> OperationState.wasWatched(state) ? WaitOutcome.COMPLETED : WaitOutcome.COMPLETED_AT_ONCE;
            case EXPIRED -> WaitOutcome.EXPIRED;
            case CANCELLED -> WaitOutcome.CANCELLED;
        };
    }

    @Override
    public void failed(DelayedOperation op, Callback callback, Throwable error) {
        counters.callbackFailed(callback);
        UserCode.report(errorHandler, name, op, callback, error);
    }

    @Override
    public void expiryBegins() {
        expiring.incrementAndGet();
    }

    @Override
    public void expiryEnds() {
        expiring.decrementAndGet();
    }

    // ---- readings ----

    @Override
    public String name() {
        return name;
    }

    /** True once the purgatory began to close. */
    boolean isClosed() {
        return closed.get();
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
        closeLock.lock(); // against close's mark: a recorder bound after it would never be closed
        try {
            if (closed.get()) {
                throw new IllegalStateException("purgatory '" + name + "' is closed");
            }
            metrics.bind(factory, events, closed::get);
        } finally {
            closeLock.unlock();
        }
    }

    // ---- close (N3, N4) ----

    @Override
    public void close() {
        boolean first;
        closeLock.lock(); // against bindMetrics: a recorder bound after the mark would never be closed
        try {
            first = closed.compareAndSet(false, true);
        } finally {
            closeLock.unlock();
        }
        if (first) {
            try {
                runtime.leave(this); // its purge policy no longer runs
                if (ownsRuntime) {
                    runtime.close(); // stops the reaper at once, then its own timer and executor
                }
                sweepAndAwait();
            } finally {
                closedFully.countDown();
            }
            return;
        }
        if (mayWaitForAnotherClose()) { // (N5)
            CloseSweep.await(closedFully, this);
        }
        if (!swept) { // the first close stopped part way (N5)
            sweepAndAwait();
        }
    }

    /** Settles what the lists hold and waits for the answers (N3, N4); then the facade's resources and the meters. */
    private void sweepAndAwait() {
        CloseSweep.awaitFinished(CloseSweep.sweep(lists, closeOutcome), expiring, this);
        swept = true;
        try {
            closeFacade.run();
        } catch (RuntimeException | Error facadeFailure) {
            UserCode.log(name, "closing what it holds besides its operations failed", facadeFailure);
        }
        metrics.close();
    }

    /**
     * Whether this thread may wait for a close running on another: not if the other may be waiting
     * for this thread (the runtime's driver, which an own runtime's close joins; a thread in a
     * try, a callback or an expiry of a purgatory).
     */
    private boolean mayWaitForAnotherClose() {
        InProgress progress = InProgress.current();
        return !runtime.isDriverThread() && !progress.holdsAnyClaim() && progress.expiriesOf(this) == 0
                && !Callbacks.isRunning();
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
        long linked = 0;
        long keys = 0;
        for (WatcherList list : lists) {
            long[] counts = list.checkInvariants();
            linked += counts[0];
            keys += counts[1];
        }
        if (linked != counters.entries() || keys != counters.keys()) {
            throw new IllegalStateException("(C2, C3) gauges disagree with the lists: entries " + counters.entries()
                    + " vs " + linked + " linked; keys " + counters.keys() + " vs " + keys);
        }
    }

    /**
     * The index of {@code key}'s watcher list: the top bits of its hash times the golden ratio. Not
     * the low bits a HashMap takes for its buckets: keys sharing a list would then share the bucket
     * bits too, and each list's map would fall into a few long (tree) buckets.
     */
    int listIndex(Object key) {
        int mixed = key.hashCode() * 0x9E3779B9;
        return listShift == 32 ? 0 : mixed >>> listShift;
    }

    private WatcherList listFor(Object key) {
        return lists[listIndex(key)];
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
