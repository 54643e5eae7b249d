package io.purgatory;

import io.purgatory.internal.Visit;
import io.purgatory.internal.WatchKeys;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Holds {@link DelayedOperation}s until an event completes them or their delay passes: Kafka's
 * {@code DelayedOperationPurgatory}, with the same names and semantics, and none of its leaks.
 *
 * <pre>{@code
 * DelayedOperationPurgatory<DelayedPayment> payments = DelayedOperationPurgatory.builder("payments").build();
 *
 * // the request: answered at once if already paid, else when paid or after the operation's delay
 * payments.tryCompleteElseWatch(new DelayedPayment(orders, orderId, reply), List.of(orderId));
 *
 * // the event, on any thread: tries the operations watching the key
 * orders.markPaid(orderId);
 * payments.checkAndComplete(orderId);
 * }</pre>
 * (see {@link DelayedOperation} for {@code DelayedPayment}).
 *
 * <p>{@link #tryCompleteElseWatch} tries an operation, else watches it on its keys (any objects
 * with equals/hashCode) and on the timer; {@link #checkAndComplete} tries the operations watching
 * a key; a reaper thread expires the rest. To wait for events by key without writing an
 * operation, use {@link KeyedWaits}. A settled operation leaves every watch list at once
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
public final class DelayedOperationPurgatory<T extends DelayedOperation> extends EngineFacade {

    /**
     * A purgatory with the defaults: its own timer ({@link io.purgatory.timer.TimerSettings#DEFAULT}),
     * 512 shards, reaper and timer on, operations expired on close.
     */
    public DelayedOperationPurgatory(String name) {
        this(new EngineSettings(name));
    }

    DelayedOperationPurgatory(EngineSettings settings) {
        super(settings);
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
     * holds no capacity, and can be submitted again; unless another call settled it meanwhile (a
     * {@code cancel}, {@code cancelForKey} of a key it was already watched on, {@code close}): then
     * that settle stands, the failure is logged, and this call returns false.
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
        if (watchKeys.size() == 1) { // one key: no array
            return engine.submit(operation, WatchKeys.only(watchKeys));
        }
        return engine.submit(operation, WatchKeys.distinct(watchKeys), null);
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
        return engine.submit(operation, new Object[] {WatchKeys.check(key, 0)}, new long[] {position});
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
        return engine.submit(operation, distinct, positions.clone());
    }

    /**
     * Tries every operation watching {@code key} when the call starts; returns how many this call
     * completed. Completions (and their {@code onComplete}) run on the calling thread, which must
     * not hold locks that a {@code tryComplete} or {@code onComplete} takes. An operation whose
     * try is running on another thread is not waited for: that thread tries it once more.
     */
    public int checkAndComplete(Object key) {
        Objects.requireNonNull(key, "key");
        return engine.check(key, Visit.ALL, 0L);
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
        return engine.check(key, Visit.NEWLY_REACHED, position);
    }

    /**
     * Cancels every operation watching {@code key} (each leaves all its keys and the timer, and its
     * {@code onCancel} runs); returns those this call cancelled. Empty if the key is unknown.
     */
    @SuppressWarnings("unchecked") // only T is ever submitted here
    public List<T> cancelForKey(Object key) {
        Objects.requireNonNull(key, "key");
        return (List<T>) (List<?>) engine.cancelAll(key);
    }

    /** The number of watch entries: each pending operation once per key. O(1). */
    public int watched() {
        return engine.counters().entries();
    }

    /** The number of keys with at least one pending operation. O(1). */
    public int watchedKeys() {
        return engine.counters().keys();
    }
}
