package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.Clock;
import io.purgatory.timer.SystemTimerReaper;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds {@link DelayedOperation}s until an event completes them or their delay passes: Kafka's
 * {@code DelayedOperationPurgatory}, with the same names and semantics, and none of its leaks.
 *
 * <p>{@link #tryCompleteElseWatch} tries an operation, else watches it on its keys (any objects
 * with equals/hashCode) and on the timer; {@link #checkAndComplete} tries the operations watching
 * a key; a reaper thread expires the rest. A settled operation leaves every watch list at once
 * (O(keys)), so memory returns to baseline without waiting for a purge. Gauges are O(1).
 *
 * <p>By default a purgatory has its own timer, reaper thread {@code ExpirationReaper-<name>} and
 * expiration executor; purgatories built with the same {@link PurgatoryRuntime} share one set.
 *
 * <p>Thread-safe. Callbacks run on the thread that settles the operation: the caller of
 * {@code checkAndComplete} or {@code forceComplete}, a thread of the expiration executor
 * (default: 2 daemon threads {@code <name>-expiration}, or the runtime's; a slow
 * {@code onExpiration} holds up only its own thread and the expirations handed over with it, at
 * most 31 due in the same tick), or the caller of {@link #close()}. Memory consistency effects:
 * actions in a thread prior to {@code checkAndComplete(key)} happen-before the {@code tryComplete} calls it
 * makes, and prior to {@code tryCompleteElseWatch} happen-before any later callback of that
 * operation. No wake-up is lost: an operation watched on a key before, or while, a
 * {@code checkAndComplete} of that key runs is tried after the caller's state change.
 */
public final class DelayedOperationPurgatory<T extends DelayedOperation> implements Purgatory {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedOperationPurgatory.class);

    private final String name;
    private final WatcherList[] shards;
    /** Shift taking a shard index from the top bits of a key's mixed hash (see shardIndex). */
    private final int shardShift;
    /** Its own (closed with it) or shared; it drives the timer and runs the purge policy. */
    private final PurgatoryRuntime runtime;
    private final boolean ownsRuntime;
    /** The runtime's timer, or null if operations are not timed (timerEnabled false). */
    private final Timer timer;
    private final Clock clock;
    private final int maxPending;
    private final AtomicInteger admitted;
    private final PurgePolicy purgePolicy;
    private final ClosePolicy closePolicy;
    private final OperationErrorHandler errorHandler;
    private final PurgatoryCounters counters = new PurgatoryCounters();
    /** Null until metrics are bound, and again once closed; written under closeLock. */
    private volatile MetricsRecorder recorder;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ReentrantLock closeLock = new ReentrantLock();

    /**
     * A purgatory with Kafka's defaults: its own timer (1 ms tick, 20 buckets), 512 shards,
     * purge interval 1000, reaper and timer on, operations expired on close.
     */
    public DelayedOperationPurgatory(String name) {
        this(new PurgatoryBuilder<>(name));
    }

    DelayedOperationPurgatory(PurgatoryBuilder<?> b) {
        this.name = b.name;
        this.shards = new WatcherList[b.shards];
        this.shardShift = 32 - Integer.numberOfTrailingZeros(b.shards); // shards is a power of two
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new WatcherList(this, counters);
        }
        this.runtime = b.runtimeOrOwn(this::onTimerError);
        this.ownsRuntime = !b.sharesRuntime();
        this.timer = b.timerEnabled ? runtime.timer() : null;
        this.clock = runtime.clock();
        this.purgePolicy = new PurgePolicy(name, shards, counters, clock, b.purgeInterval);
        this.maxPending = b.maxPending;
        this.admitted = b.maxPending > 0 ? new AtomicInteger() : null;
        this.closePolicy = b.closePolicy;
        this.errorHandler = b.errorHandler;
        runtime.register(this); // last but the metrics: throws if a shared runtime is closed, leaving nothing bound
        if (b.metrics != null) {
            try {
                bindMetrics(b.metrics, null);
            } catch (RuntimeException bindFailure) {
                close(); // settles nothing (nothing was submitted), leaves the runtime, stops an own one
                throw bindFailure;
            }
        }
    }

    /**
     * Starts a builder for a purgatory named {@code name}. Its {@code build()} infers the operation
     * type from the assignment: {@code DelayedOperationPurgatory<MyOp> p = builder("x").build();}.
     *
     * @param <T> a bound on the operation type of the purgatories it builds ({@link DelayedOperation}
     *     when inferred in a chain)
     */
    public static <T extends DelayedOperation> PurgatoryBuilder<T> builder(String name) {
        return new PurgatoryBuilder<>(name);
    }

    /**
     * Tries to complete {@code operation}; if it cannot, watches it on every key, tries once more
     * (so no completion triggered meanwhile is missed), and adds it to the timer. Returns true iff
     * this call completed it. A submission that fails (a key whose hashCode or equals throws while
     * it is watched, a timer that refuses it) leaves nothing behind: the operation is on no list,
     * holds no capacity, and can be submitted again.
     *
     * @throws NullPointerException if {@code operation}, {@code watchKeys} or a key is null
     * @throws IllegalArgumentException if {@code watchKeys} is empty or a key's hashCode/equals throws
     * @throws IllegalStateException if the purgatory is closed, or the operation was already
     *         submitted (here or to another purgatory) or is already settled
     * @throws PurgatoryFullException if {@code maxPending} operations are pending
     */
    public boolean tryCompleteElseWatch(T operation, Collection<?> watchKeys) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(watchKeys, "watchKeys");
        Object key = watchKeys.size() == 1 ? WatchKeys.only(watchKeys) : null; // one key: no array
        return submit(operation, key, key == null ? WatchKeys.distinct(watchKeys) : null, null);
    }

    /**
     * As {@link #tryCompleteElseWatch(DelayedOperation, Collection)}, on one key, for an operation
     * that waits until the key's position (an offset, a sequence number, a version) reaches
     * {@code position}: {@link #checkAndComplete(Object, long)} with a position below it never
     * tries the operation, so a check of a key with many such operations costs O(completed + log
     * pending) instead of O(pending). A {@link #checkAndComplete(Object)} of the key (for a change
     * that is not a move of its position: a leader change, an error) tries it as any other. The
     * operation still decides in its {@code tryComplete}: the positional check that reaches its
     * position tries it once; if it does not complete then, it waits for a
     * {@code checkAndComplete(key)}, as positions only move forward and what else it waits for
     * is no position.
     *
     * @throws NullPointerException if {@code operation} or {@code key} is null
     * @throws IllegalArgumentException if the key's hashCode or equals throws
     * @throws IllegalStateException as for the collection form
     * @throws PurgatoryFullException if {@code maxPending} operations are pending
     */
    public boolean tryCompleteElseWatch(T operation, Object key, long position) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(key, "key");
        return submit(operation, WatchKeys.check(key, 0), null, new long[] {position});
    }

    /**
     * As {@link #tryCompleteElseWatch(DelayedOperation, Object, long)}, on several keys: the
     * operation waits on {@code keys.get(i)} until its position reaches {@code positions[i]}. A
     * positional check of one of its keys tries it once, when it reaches the operation's position
     * there; then, if it did not complete, it is tried by that key's {@code checkAndComplete(key)}
     * and by the positional checks of its other keys (an acks=all produce that waits for every
     * partition's high watermark).
     *
     * @throws IllegalArgumentException if the keys are empty or not distinct, or their number is
     *         not that of the positions
     */
    public boolean tryCompleteElseWatch(T operation, List<?> keys, long[] positions) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(positions, "positions");
        Object[] distinct = WatchKeys.distinct(keys);
        if (distinct.length != keys.size() || positions.length != keys.size()) {
            throw new IllegalArgumentException("positioned waits need distinct keys, one per position: "
                    + keys.size() + " keys (" + distinct.length + " distinct), " + positions.length + " positions");
        }
        return submit(operation, distinct.length == 1 ? distinct[0] : null, distinct.length == 1 ? null : distinct,
                positions.clone());
    }

    /** Submits with the keys validated: one key, or several; at positions if {@code positions} is not null. */
    private boolean submit(T operation, Object key, Object[] keys, long[] positions) {
        if (closed.get()) {
            throw new IllegalStateException("purgatory '" + name + "' is closed");
        }
        OperationState.checkSubmittable(operation, operation.state); // a misuse is not a capacity rejection
        runtime.startDriver(); // before anything is admitted: a thread that cannot start leaves nothing behind
        admit();
        try {
            OperationState.claimForSubmission(operation);
        } catch (RuntimeException misuse) { // submitted or settled by another thread since the check
            release();
            throw misuse;
        }
        boolean completed;
        try {
            completed = submitClaimed(operation, key, keys, positions);
        } catch (Throwable failure) {
            abandon(operation);
            OperationState.release(operation, this);
            throw failure;
        }
        completed |= OperationState.release(operation, this); // retries asked, a settle made meanwhile
        return completed;
    }

    /** Kafka's four steps, with the submission's claim held: no other thread tries the operation meanwhile. */
    private boolean submitClaimed(DelayedOperation operation, Object key, Object[] keys, long[] positions) {
        if (OperationState.tryOnce(operation, this)) { // 1. try
            return true;
        }
        if (operation.isCompleted()) {
            return false;
        }
        if (key != null) { // 2. watch
            watchOne(operation, key, 0, true, positions);
        } else {
            for (int i = 0; i < keys.length; i++) {
                watchOne(operation, keys[i], i, keys.length == 1, positions);
            }
        }
        if (closed.get()) { // raced with close(), which may not have seen it: settle as close would
            OperationState.settle(operation, closeOutcome());
            return false;
        }
        boolean timed = recorder != null;
        OperationState.markWatched(operation, timed, timed ? clock.nanoTime() : 0L);
        counters.watched(key != null ? 1 : keys.length);
        if (OperationState.tryOnce(operation, this)) { // 3. try again
            return true;
        }
        if (timer != null && !operation.isCompleted()) { // 4. the timeout
            try {
                timer.add(operation);
            } catch (IllegalStateException timerClosed) { // it can never expire now: settle as close would
                OperationState.settle(operation, closeOutcome());
            }
        }
        return false;
    }

    private void watchOne(DelayedOperation operation, Object key, int index, boolean alone, long[] positions) {
        try {
            if (positions != null) {
                shardFor(key).watchAt(operation, key, positions[index]);
            } else {
                shardFor(key).watch(operation, key, alone);
            }
        } catch (RuntimeException keyFailure) { // hashCode or equals threw after passing validation
            throw new IllegalArgumentException("watch key at index " + index + " failed while the operation was"
                    + " being watched (its hashCode or equals threw): " + keyFailure, keyFailure);
        }
    }

    /** Undoes a failed submission, its claim still held: off every list and the timer, no capacity held. */
    private void abandon(DelayedOperation operation) {
        boolean wasWatched = operation.isWatched();
        int unlinked = WatcherList.unwatchAll(operation);
        if (wasWatched) {
            counters.unwatched(unlinked);
        }
        if (timer != null) {
            operation.cancelTimerEntry();
        }
        OperationState.abandon(operation);
        release();
    }

    /**
     * Tries every operation watching {@code key} when the call starts; returns how many this call
     * completed. Completions (and their {@code onComplete}) run on the calling thread, which must
     * not hold locks that a {@code tryComplete} or {@code onComplete} takes. An operation whose
     * try is running on another thread is not waited for: that thread tries it once more.
     */
    public int checkAndComplete(Object key) {
        Objects.requireNonNull(key, "key");
        return shardFor(key).checkAndComplete(key);
    }

    /**
     * Tells the purgatory that {@code key} changed and its position is now {@code position}: tries
     * the operations watching the key plainly, as {@link #checkAndComplete(Object)} does, and of
     * those watching it at a position (see
     * {@link #tryCompleteElseWatch(DelayedOperation, Object, long)}) exactly the ones whose position
     * is at most {@code position}, found in O(their number + log pending). Returns how many this
     * call completed.
     */
    public int checkAndComplete(Object key, long position) {
        Objects.requireNonNull(key, "key");
        return shardFor(key).checkAndComplete(key, position);
    }

    /**
     * Visits the operations watching {@code key} when the call starts, with {@code event}: those
     * watching it plainly, and those at a position of at most {@code reached} (keyed waits).
     */
    int visitReached(Object key, long reached, Object event, WatcherList.Visitor visitor) {
        return shardFor(key).visit(key, WatcherList.REACHED, reached, event, visitor);
    }

    /** Visits every operation watching {@code key} when the call starts, with {@code event} (keyed waits). */
    int visitAll(Object key, Object event, WatcherList.Visitor visitor) {
        return shardFor(key).visit(key, WatcherList.ALL, 0L, event, visitor);
    }

    /**
     * Cancels every operation watching {@code key} (each leaves all its keys and the timer, and its
     * {@code onCancel} runs); returns those this call cancelled. Empty if the key is unknown.
     */
    public List<T> cancelForKey(Object key) {
        Objects.requireNonNull(key, "key");
        List<T> cancelled = new ArrayList<>();
        for (DelayedOperation operation : shardFor(key).operationsOn(key)) {
            if (operation.cancel()) {
                @SuppressWarnings("unchecked") // only T is ever watched here
                T typed = (T) operation;
                cancelled.add(typed);
            }
        }
        return cancelled;
    }

    /** The number of watch entries: each pending operation once per key. O(1). */
    public int watched() {
        return PurgatoryCounters.toInt(counters.entries());
    }

    /** The number of pending operations (watched, not yet settled) of this purgatory. O(1). */
    public int numDelayed() {
        return PurgatoryCounters.toInt(counters.pending());
    }

    /** The number of keys with at least one pending operation. O(1). */
    public int watchedKeys() {
        return PurgatoryCounters.toInt(counters.keys());
    }

    /** A snapshot of this purgatory's counters. O(1). */
    @Override
    public PurgatoryStats stats() {
        return new PurgatoryStats(name, numDelayed(), watched(), watchedKeys(), counters.completedWatched(),
                counters.completedAtOnce(), counters.settled(Outcome.EXPIRED), counters.settled(Outcome.CANCELLED),
                counters.callbackErrorTotal(), counters.rejectedCount(), counters.purgeCount(),
                counters.expirationsRefusedCount());
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
        bindMetrics(factory, null);
    }

    /** Binds the metrics of this purgatory, and of the retention of the keyed waits built on it if any. */
    void bindMetrics(MetricsRecorderFactory factory, EventRetention<?> retention) {
        Objects.requireNonNull(factory, "factory");
        closeLock.lock(); // against close(): a recorder bound after it would never be closed
        try {
            if (closed.get()) {
                throw new IllegalStateException("purgatory '" + name + "' is closed");
            }
            if (recorder != null) {
                throw new IllegalStateException("metrics of purgatory '" + name + "' are already bound");
            }
            MetricsRecorder created = factory.create(new MetricsSource(name, counters, retention));
            recorder = Objects.requireNonNull(created, () -> "the MetricsRecorderFactory " + factory
                    + " returned no recorder");
        } finally {
            closeLock.unlock();
        }
    }

    /** Whether metrics are bound (and not yet closed). */
    @Override
    public boolean hasMetrics() {
        return recorder != null;
    }

    /** The name given to the builder: it names the threads, the log lines and the meters' tag. */
    @Override
    public String name() {
        return name;
    }

    /** Whether {@link #close()} has been called. */
    @Override
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes the purgatory: stops its reaper at once, settles every pending operation by the
     * close policy (default: expires them, on this thread; an operation whose try is running on
     * another thread is answered there, as soon as its try returns), closes the timer if it is the
     * purgatory's own, and removes the meters. On a shared {@link PurgatoryRuntime} it leaves the
     * runtime's timer and threads running for the other purgatories, and only leaves the runtime.
     * Idempotent. Afterwards {@code tryCompleteElseWatch} throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        closeLock.lock(); // a concurrent close() returns only once the first has settled everything
        try {
            if (!closed.compareAndSet(false, true)) {
                return; // closed already, or called again from a callback settled by this close
            }
            closeNow();
        } finally {
            closeLock.unlock();
        }
    }

    private void closeNow() {
        runtime.deregister(this); // its purge policy no longer runs
        if (ownsRuntime) {
            runtime.close(); // stops the reaper at once, then its own timer and executor, never a timer passed in
        }
        Outcome outcome = closeOutcome();
        for (WatcherList shard : shards) {
            for (DelayedOperation operation : shard.operations()) {
                OperationState.settle(operation, outcome);
            }
        }
        MetricsRecorder bound = recorder;
        if (bound != null) {
            recorder = null;
            try {
                bound.close();
            } catch (Throwable recorderError) {
                recorderFailed(recorderError);
            }
        }
    }

    // ---- called by the operations' settles and callbacks ----

    /** A submitted operation was settled: off every list and the timer, counted; its callbacks run next. */
    void onSettled(DelayedOperation operation, Outcome outcome, long state) {
        release();
        if (timer != null) {
            operation.cancelTimerEntry();
        }
        int unlinked = WatcherList.unwatchAll(operation);
        boolean watched = OperationState.wasWatched(state);
        counters.settled(outcome, watched, unlinked);
        MetricsRecorder bound = recorder;
        if (watched && bound != null) {
            record(bound, operation, outcome, state);
        }
    }

    /** Reports a settled operation's durations; whatever the recorder throws is logged, never passed on. */
    private void record(MetricsRecorder bound, DelayedOperation operation, Outcome outcome, long state) {
        long waited = OperationState.watchedNanos(state, clock.nanoTime());
        if (waited < 0) {
            return; // watched before the metrics were bound: no start to measure from
        }
        try {
            bound.recordSettled(outcome, waited);
            if (outcome == Outcome.EXPIRED && !closed.get()) { // expired by close() is not late
                long delayMs = Math.max(0L, Math.min(operation.delayMs(), Timer.MAX_DELAY_MS));
                bound.recordLateness(Math.max(0L, waited - TimeUnit.MILLISECONDS.toNanos(delayMs)));
            }
        } catch (Throwable recorderError) {
            recorderFailed(recorderError);
        }
    }

    private void recorderFailed(Throwable error) {
        LOG.error("Purgatory '{}': its MetricsRecorder threw; the operation settled regardless", name, error);
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

    void onCallbackError(DelayedOperation operation, Callback callback, Throwable error) {
        counters.callbackFailed(callback);
        OperationErrorHandler.report(errorHandler, name, operation, callback, error);
    }

    /** Runs the purge policy once: the reaper (or the shared runtime's driver) does after each advance. */
    void purgeIfNeeded() {
        purgePolicy.run();
    }

    /** Empty key lists still in the shards' maps: kept for reuse, or lingering (tests). */
    long emptyKeyLists() {
        return counters.emptyLists();
    }

    /** Checks every shard's invariants and the gauges against them (tests, in quiescence). */
    void checkInvariants() {
        long linked = 0;
        long keys = 0;
        for (WatcherList shard : shards) {
            long[] counts = shard.checkInvariants();
            linked += counts[0];
            keys += counts[1];
        }
        if (linked != counters.entries() || keys != counters.keys()) {
            throw new IllegalStateException("(C2, C3) gauges disagree with the lists: entries " + counters.entries()
                    + " vs " + linked + " linked; keys " + counters.keys() + " vs " + keys);
        }
    }

    /** The thread driving the timer, once started: this purgatory's reaper, or its shared runtime's driver. */
    SystemTimerReaper reaper() {
        return runtime.driver();
    }

    Timer timer() {
        return timer;
    }

    // ---- internals ----

    private WatcherList shardFor(Object key) {
        return shards[shardIndex(key)];
    }

    /**
     * The shard of {@code key}: the top bits of its hash times the golden ratio. Not the low bits
     * a HashMap takes for its buckets: keys sharing a shard would then share the bucket bits too,
     * and each shard's map would fall into a few long (tree) buckets.
     */
    int shardIndex(Object key) {
        int mixed = key.hashCode() * 0x9E3779B9;
        return shardShift == 32 ? 0 : mixed >>> shardShift;
    }

    private Outcome closeOutcome() {
        return switch (closePolicy) {
            case EXPIRE -> Outcome.EXPIRED;
            case COMPLETE -> Outcome.COMPLETED;
            case CANCEL -> Outcome.CANCELLED;
        };
    }

    private void admit() {
        if (admitted != null && admitted.incrementAndGet() > maxPending) {
            admitted.decrementAndGet();
            counters.rejected();
            throw new PurgatoryFullException(name, maxPending);
        }
    }

    private void release() {
        if (admitted != null) {
            admitted.decrementAndGet();
        }
    }
}
