package io.purgatory;

import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.timer.Clock;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
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
 * <p>Thread-safe. Callbacks run on the thread that settles the operation: the caller of
 * {@code checkAndComplete} or {@code forceComplete}, a thread of the expiration executor
 * (default: 2 daemon threads {@code <name>-expiration}; a slow {@code onExpiration} holds up only
 * its own thread and the expirations handed over with it, at most 31 due in the same tick), or the caller of {@link #close()}. Memory consistency effects: actions in a
 * thread prior to {@code checkAndComplete(key)} happen-before the {@code tryComplete} calls it
 * makes, and prior to {@code tryCompleteElseWatch} happen-before any later callback of that
 * operation. No wake-up is lost: an operation watched on a key before, or while, a
 * {@code checkAndComplete} of that key runs is tried after the caller's state change.
 */
public final class DelayedOperationPurgatory<T extends DelayedOperation> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedOperationPurgatory.class);

    private final String name;
    private final WatcherList[] shards;
    /** The list a submitted operation points to until it is on a key's list (DelayedOperation D7). */
    private final Watchers unwatched;
    private final int shardMask;
    private final Timer timer;
    private final boolean ownsTimer;
    private final ExecutorService ownedExecutor;
    private final ExpiredOperationReaper reaper;
    private final Clock clock;
    private final int maxPending;
    private final AtomicInteger admitted;
    private final PurgePolicy purgePolicy;
    private final ClosePolicy closePolicy;
    private final OperationErrorHandler errorHandler;
    private final PurgatoryCounters counters = new PurgatoryCounters();
    private final PurgatoryMetrics metrics;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ReentrantLock closeLock = new ReentrantLock();

    /**
     * A purgatory with Kafka's defaults: its own timer (1 ms tick, 20 buckets), 512 shards,
     * purge interval 1000, reaper and timer on, operations expired on close.
     */
    public DelayedOperationPurgatory(String name) {
        this(new PurgatoryBuilder<T>(name));
    }

    DelayedOperationPurgatory(PurgatoryBuilder<T> b) {
        this.name = b.name;
        this.shards = new WatcherList[b.shards];
        this.shardMask = b.shards - 1;
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new WatcherList(this, counters);
        }
        this.unwatched = new Watchers("(unwatched)", new WatcherList(this, counters));
        PurgatoryBuilder.TimerSetup setup = b.timerSetup(this::onTimerError);
        this.timer = setup.timer();
        this.ownsTimer = setup.owned();
        this.ownedExecutor = setup.ownedExecutor();
        this.clock = setup.clock();
        this.purgePolicy = new PurgePolicy(name, shards, counters, clock, b.purgeInterval);
        this.reaper = b.reaperEnabled ? new ExpiredOperationReaper(name, timer, purgePolicy) : null;
        this.maxPending = b.maxPending;
        this.admitted = b.maxPending > 0 ? new AtomicInteger() : null;
        this.closePolicy = b.closePolicy;
        this.errorHandler = b.errorHandler;
        this.metrics = new PurgatoryMetrics(this, counters);
        if (b.meterRegistry != null) {
            metrics.bindTo(b.meterRegistry);
        }
    }

    /** Starts a builder for a purgatory named {@code name}. */
    public static <T extends DelayedOperation> PurgatoryBuilder<T> builder(String name) {
        return new PurgatoryBuilder<>(name);
    }

    /**
     * Tries to complete {@code operation}; if it cannot, watches it on every key, tries once more
     * (so no completion triggered meanwhile is missed), and adds it to the timer. The operation's
     * monitor is held from the first try to the second. Returns true iff this call completed it.
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
        Object key = null;
        Object[] keys = null;
        if (watchKeys.size() == 1) {
            key = WatchKeys.check(watchKeys instanceof List<?> list ? list.get(0) : watchKeys.iterator().next(), 0);
        } else {
            keys = WatchKeys.distinct(watchKeys);
        }
        if (closed.get()) {
            throw new IllegalStateException("purgatory '" + name + "' is closed");
        }
        if (operation.isCompleted()) {
            throw new IllegalStateException("operation is already settled (" + operation.outcome() + "): " + operation);
        }
        if (operation.purgatory() != null) {
            throw alreadySubmitted(operation); // checked before admit: a misuse is not a capacity rejection
        }
        admit();
        int result = operation.submit(this, key, keys);
        if (result == DelayedOperation.REFUSED_SETTLED || result == DelayedOperation.REFUSED_SUBMITTED) {
            release();
            if (result == DelayedOperation.REFUSED_SETTLED) { // settled by another thread since the check (D6)
                throw new IllegalStateException("operation is already settled (" + operation.outcome() + "): "
                        + operation);
            }
            throw alreadySubmitted(operation);
        }
        if (reaper != null) {
            reaper.start();
        }
        if (result == DelayedOperation.COMPLETED_HERE) {
            return true;
        }
        if (timer != null && !operation.isCompleted()) {
            try {
                timer.add(operation);
            } catch (IllegalStateException timerClosed) {
                operation.settle(closeOutcome()); // the purgatory closed meanwhile: settle, never drop
                return false;
            }
            if (operation.isCompleted()) {
                operation.cancelTimerEntry(); // completed between the try and the add
            }
        }
        return false;
    }

    /** Called by the operation under its monitor (DelayedOperation D5): {@code key}, or {@code keys} if it is null. */
    void watch(DelayedOperation operation, Object key, Object[] keys) {
        int linked = 0;
        if (key != null) {
            linked += watchOne(operation, key);
        } else {
            for (Object k : keys) {
                linked += watchOne(operation, k);
            }
        }
        if (linked != 1) {
            counters.extraWatches.add(linked - 1); // (PurgatoryCounters C2)
        }
        boolean timed = metrics.isBound();
        operation.markWatched(timed, timed ? clock.nanoTime() : 0L);
        counters.watchedOps.increment(); // (C1)
        if (closed.get()) {
            operation.settle(closeOutcome()); // raced with close(): settle as close would have
        }
    }

    private int watchOne(DelayedOperation operation, Object key) {
        try {
            shardFor(key).watch(operation, key, unwatched);
            return 1;
        } catch (RuntimeException keyFailure) { // equals/hashCode failed after passing validation
            LOG.error("Purgatory '{}': cannot watch {} on key {}; it stays watched on its other keys"
                    + " and on the timer", name, operation, key, keyFailure);
            return 0;
        }
    }

    /**
     * Tries every operation watching {@code key}; returns how many this call completed.
     * Completions (and their {@code onComplete}) run on the calling thread, which must not hold
     * locks that a {@code tryComplete} or {@code onComplete} takes.
     */
    public int checkAndComplete(Object key) {
        Objects.requireNonNull(key, "key");
        return shardFor(key).checkAndComplete(key);
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
        return PurgatoryCounters.toInt(counters.watched());
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
    public PurgatoryStats stats() {
        return new PurgatoryStats(name, numDelayed(), watched(), watchedKeys(), counters.completed.sum(),
                counters.completedAtOnce.sum(), counters.expired.sum() + counters.expiredUnwatched.sum(),
                counters.cancelled.sum() + counters.cancelledUnwatched.sum(),
                counters.callbackErrorTotal(), counters.rejected.sum(), counters.purges.sum(),
                counters.expirationsRefused.sum());
    }

    /** This purgatory's meters; bound already if the builder was given a registry. */
    public PurgatoryMetrics metrics() {
        return metrics;
    }

    public String name() {
        return name;
    }

    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes the purgatory: stops the reaper at once, settles every pending operation by the
     * close policy (default: expires them, on this thread), closes the timer if it is the
     * purgatory's own, and removes the meters. Idempotent. Afterwards
     * {@code tryCompleteElseWatch} throws {@link IllegalStateException}.
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
        if (reaper != null) {
            reaper.close();
        }
        Outcome outcome = closeOutcome();
        for (WatcherList shard : shards) {
            shard.forEachOperation(operation -> operation.settle(outcome));
        }
        if (ownsTimer) {
            timer.close();
        }
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
        metrics.remove();
    }

    // ---- called by operations and the reaper ----

    /** An operation was settled (DelayedOperation D4): unlink it everywhere and count it. */
    void onSettled(DelayedOperation operation, Outcome outcome, boolean watched) {
        release();
        if (!watched) {
            counters.settledUnwatched(outcome).increment();
            return;
        }
        if (timer != null) {
            operation.cancelTimerEntry();
        }
        int unlinked = 0;
        Watchers first = operation.watchers;
        if (first != unwatched && first.shard.unwatch(operation, first)) {
            unlinked++;
        }
        for (WatchNode node = operation.moreNodes; node != null; node = node.nextOfOperation) {
            if (node.watchers.shard.unwatch(node, node.watchers)) {
                unlinked++;
            }
        }
        if (unlinked != 1) {
            counters.extraWatches.add(1 - unlinked); // (C2)
        }
        counters.settled(outcome).increment(); // (C1)
        if (metrics.isBound()) {
            long waited = operation.watchedNanos(clock.nanoTime());
            if (waited >= 0) {
                metrics.recordSettled(outcome, waited);
                if (outcome == Outcome.EXPIRED && !closed.get()) { // expired by close() is not late
                    metrics.recordLateness(waited - TimeUnit.MILLISECONDS.toNanos(operation.delayMs()));
                }
            }
        }
    }

    /**
     * The own timer's error handler: count the failure and log it as the timer would have. Its
     * tasks are operations, whose run() lets nothing escape, so every call is an expiration the
     * executor refused (its execute threw); SystemTimer then ran it on its own thread.
     */
    private void onTimerError(TimerTask task, Throwable error) {
        counters.expirationsRefused.increment();
        TaskErrorHandler.logging().onError(task, error);
    }

    void onCallbackError(DelayedOperation operation, Callback callback, Throwable error) {
        counters.callbackErrors[callback.ordinal()].increment();
        OperationErrorHandler.report(errorHandler, name, operation, callback, error);
    }

    /** Runs the purge policy once, as the reaper does after each advance of the clock (tests). */
    void purgeIfNeeded() {
        purgePolicy.run();
    }

    /** Empty key lists still in the shards' maps: kept for reuse, or lingering (tests). */
    long emptyKeyLists() {
        return counters.emptyKeys.sum();
    }

    /** Checks every shard's invariants and the gauges against them (tests, in quiescence). */
    void checkInvariants() {
        long linked = 0;
        long keys = 0;
        for (WatcherList shard : shards) {
            linked += shard.checkInvariants();
            keys += shard.keyCount();
        }
        if (linked != counters.watched() || keys != counters.keys()) {
            throw new IllegalStateException("gauges disagree with the lists: watched " + counters.watched()
                    + " vs " + linked + " linked; keys " + counters.keys() + " vs " + keys);
        }
    }

    /** The marker list of submitted operations not on any key's list yet (DelayedOperation D7). */
    Watchers unwatched() {
        return unwatched;
    }

    ExpiredOperationReaper reaper() {
        return reaper;
    }

    Timer timer() {
        return timer;
    }

    // ---- internals ----

    private WatcherList shardFor(Object key) {
        int h = key.hashCode();
        return shards[(h ^ (h >>> 16)) & shardMask];
    }

    private Outcome closeOutcome() {
        return switch (closePolicy) {
            case EXPIRE -> Outcome.EXPIRED;
            case COMPLETE -> Outcome.COMPLETED;
            case CANCEL -> Outcome.CANCELLED;
        };
    }

    private static IllegalStateException alreadySubmitted(DelayedOperation operation) {
        DelayedOperationPurgatory<?> other = operation.purgatory();
        return new IllegalStateException("operation was already submitted to purgatory '"
                + (other == null ? "?" : other.name) + "': " + operation);
    }

    private void admit() {
        if (admitted != null && admitted.incrementAndGet() > maxPending) {
            admitted.decrementAndGet();
            counters.rejected.increment();
            throw new PurgatoryFullException(name, maxPending);
        }
    }

    private void release() {
        if (admitted != null) {
            admitted.decrementAndGet();
        }
    }
}
