package io.purgatory;

import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Waits for business events by key: {@link #await} returns a future of the event's value, and
 * {@link #complete} hands a value to every wait on its key. A wait that gets no event in time fails
 * with a {@link WaitTimeoutException} (a {@link TimeoutException}), or completes with a fallback of
 * your choice. A wait is never answered by its timeout before the timeout has passed; it can be a
 * tick or a busy expiration thread later, and an event that arrives meanwhile still answers it.
 *
 * <pre>{@code
 * KeyedWaits<OrderId, Payment> payments = KeyedWaits.builder("payments")
 *         .retainEvents(Duration.ofSeconds(30), 100_000)   // an event just before its wait still answers it
 *         .build();
 *
 * // the long poll:
 * CompletableFuture<Payment> paid = payments.await(orderId, Duration.ofSeconds(20));
 * // the webhook, on any thread:
 * payments.complete(orderId, payment);
 * }</pre>
 *
 * <p>Keys and values are typed, so a wait on an {@code Integer} and an event for a {@code Long}
 * do not compile together. Keys need consistent {@code equals} and {@code hashCode}; values may be
 * null.
 *
 * <p><b>Ending a wait.</b> Each wait is settled exactly once, by the first of: an event its
 * predicate accepts ({@link #complete}), an error ({@link #completeExceptionally}), its timeout
 * ({@link TimeoutException} or the fallback), a completion or cancellation of its future from
 * outside (a web framework cancelling it when the client goes away, {@code orTimeout}...), or
 * {@link #close()} (by the close policy: by default a {@link WaitTimeoutException} whose
 * {@code closed()} is true, or the fallback; or cancelled). Whatever ends
 * it, the wait leaves its keys and the timer at once: nothing stays pending until its timeout.
 *
 * <p><b>Early events</b> ({@link Builder#retainEvents}): the last value handed over for each key is
 * kept for a window, so a wait registered within that window completes at once with it, if its
 * predicate accepts it. This closes the race in which the event beats the wait. Without retention,
 * an event answers only the waits registered when it arrives.
 *
 * <p><b>Threads.</b> Thread-safe. A future completes on the thread that settles its wait: the
 * caller of {@code complete}, {@code completeExceptionally} or {@code close}, the caller of
 * {@code await} when an early event answers it at once, or an expiration thread at the timeout.
 * Dependent stages without {@code Async} run there too, so keep them short or use the
 * {@code *Async} stages. Predicates run on the thread handing over the event, possibly on several
 * threads at once, with no lock held: they must be quick, thread-safe and free of side effects;
 * one that throws counts as "not this value" and its error goes to the error handler.
 *
 * <p>Built on a {@link DelayedOperationPurgatory} (its shards, timer, counters and meters, under
 * this object's name); a wait costs one operation and its future.
 *
 * @param <K> the key type
 * @param <V> the event value type
 */
public final class KeyedWaits<K, V> implements Purgatory {

    /** The position of an event that carries none: it answers no positioned wait. */
    static final long NO_POSITION = Long.MIN_VALUE;

    private final DelayedOperationPurgatory<KeyedWait<V>> purgatory;
    private final EventRetention<V> retention;
    private final WatcherList.Visitor offer = (op, value) -> offer(op, value, NO_POSITION);
    private final WatcherList.Visitor fail = KeyedWaits::fail;

    @SuppressWarnings("unchecked") // the purgatory is new and holds only the KeyedWait<V> submitted here
    private KeyedWaits(Builder b) {
        if (b.purgatory.closePolicy == ClosePolicy.COMPLETE) {
            throw new IllegalArgumentException("closePolicy COMPLETE has no value to complete a keyed wait with:"
                    + " use EXPIRE (the timeout's answer) or CANCEL");
        }
        this.purgatory = (DelayedOperationPurgatory<KeyedWait<V>>) (DelayedOperationPurgatory<?>) b.purgatory.build();
        Timer timer = purgatory.timer();
        this.retention = b.retainWindowMs > 0
                ? new EventRetention<>(b.retainWindowMs, b.retainMaxEntries, timer) : null;
        if (b.metrics != null) {
            try {
                purgatory.bindMetrics(b.metrics, retention);
            } catch (RuntimeException bindFailure) {
                close();
                throw bindFailure;
            }
        }
    }

    /**
     * Starts a builder of keyed waits named {@code name} (the name of its purgatory and meters).
     * The key and value types come from the assignment: no type witness is needed.
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Waits at most {@code timeout} for the next event on {@code key}, else fails with a {@link TimeoutException}. */
    public CompletableFuture<V> await(K key, Duration timeout) {
        return on(key).await(timeout);
    }

    /** Waits at most {@code timeout} for an event on {@code key} that {@code until} accepts. */
    public CompletableFuture<V> await(K key, Duration timeout, Predicate<? super V> until) {
        return on(key).until(until).await(timeout);
    }

    /** Waits at most {@code timeout} for the first event on any of {@code keys} that {@code until} accepts. */
    public CompletableFuture<V> awaitAny(Collection<? extends K> keys, Duration timeout, Predicate<? super V> until) {
        return onAny(keys).until(until).await(timeout);
    }

    /** A wait on {@code key}, to refine ({@link Await#until}, {@link Await#orElse}) and then {@link Await#await}. */
    public Await<K, V> on(K key) {
        return new Await<>(this, Objects.requireNonNull(key, "key"));
    }

    /**
     * A wait on several keys, answered by the first accepted event on any of them.
     *
     * @throws NullPointerException if {@code keys} or one of them is null
     * @throws IllegalArgumentException if {@code keys} is empty
     */
    public Await<K, V> onAny(Collection<? extends K> keys) {
        Object[] distinct = WatchKeys.distinct(keys);
        return new Await<>(this, distinct.length == 1 ? distinct[0] : distinct);
    }

    /**
     * Hands {@code value} to every wait on {@code key} whose predicate accepts it, and, with early
     * events on, keeps it as the key's last event for the window. Returns how many waits it
     * answered. After {@link #close()}, does nothing and returns 0.
     */
    public int complete(K key, V value) {
        Objects.requireNonNull(key, "key");
        if (purgatory.isClosed()) {
            return 0;
        }
        if (retention != null) {
            retention.retain(key, value, NO_POSITION); // before the waits are visited (R2)
        }
        return purgatory.visitReached(key, NO_POSITION, value, offer);
    }

    /**
     * As {@link #complete(Object, Object)}, for an event that moves {@code key}'s position (a
     * version, a sequence number, an offset) to {@code position}: it also answers the waits for a
     * position of at most {@code position} ({@link Await#atLeast}), found in O(their number + log
     * pending) however many wait for a later one. Returns how many waits it answered.
     *
     * @throws IllegalArgumentException if {@code position} is {@code Long.MIN_VALUE}, which means "none"
     */
    public int complete(K key, V value, long position) {
        Objects.requireNonNull(key, "key");
        if (position == NO_POSITION) {
            throw new IllegalArgumentException("position must be above Long.MIN_VALUE: " + position);
        }
        if (purgatory.isClosed()) {
            return 0;
        }
        if (retention != null) {
            retention.retain(key, value, position); // before the waits are visited (R2)
        }
        return purgatory.visitReached(key, position, value, new PositionedOffer(position));
    }

    /** Fails every wait on {@code key} with {@code error}; returns how many. Errors are not retained. */
    public int completeExceptionally(K key, Throwable error) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(error, "error");
        return purgatory.visitAll(key, error, fail); // every wait, positioned or not
    }

    /** Pending waits. O(1). */
    public int pending() {
        return purgatory.numDelayed();
    }

    /** Early events retained now (0 without retention). */
    public int retainedEvents() {
        return retention == null ? 0 : retention.size();
    }

    /** A snapshot of the counters of the underlying purgatory: pending, completed, expired, cancelled... */
    @Override
    public PurgatoryStats stats() {
        return purgatory.stats();
    }

    /**
     * Binds the metrics of the waits with {@code factory}, their purgatory's and, with
     * {@code retainEvents}, the retention's (see {@link DelayedOperationPurgatory#bindMetrics}).
     *
     * @throws IllegalStateException if metrics are already bound, or the waits are closed
     */
    @Override
    public void bindMetrics(MetricsRecorderFactory factory) {
        purgatory.bindMetrics(factory, retention);
    }

    /** Whether metrics are bound (and the waits not yet closed). */
    @Override
    public boolean hasMetrics() {
        return purgatory.hasMetrics();
    }

    /**
     * True iff {@code value} is a future returned by {@code await} (or {@code on(...).await}) of any
     * keyed waits: its one caller's, so cancelling it ends just that wait. False for a stage derived
     * from it ({@code thenApply}...), for any other object, and for null. For an integration that
     * cancels a caller's wait when the caller goes away, and must leave shared futures alone.
     */
    public static boolean isWait(Object value) {
        return value instanceof KeyedWait.WaitFuture<?>;
    }

    /** How long an early event is kept for a wait registered after it; {@link Duration#ZERO} without retention. */
    public Duration retentionWindow() {
        return retention == null ? Duration.ZERO : Duration.ofMillis(retention.windowMs());
    }

    /** The name of the waits: of their purgatory, threads and meters. */
    @Override
    public String name() {
        return purgatory.name();
    }

    /** True once {@link #close()} was called, here or by a runtime the waits were built on. */
    @Override
    public boolean isClosed() {
        return purgatory.isClosed();
    }

    /**
     * Answers every pending wait by the close policy (default: as its timeout would, else
     * cancelled), drops the retained events, stops the timer if it is the waits' own and removes
     * the meters. Idempotent. Afterwards {@code await} throws {@link IllegalStateException} and
     * {@code complete} does nothing.
     */
    @Override
    public void close() {
        purgatory.close();
        if (retention != null) {
            retention.close();
        }
    }

    // ---- for KeyedWait and tests ----

    DelayedOperationPurgatory<KeyedWait<V>> purgatory() {
        return purgatory;
    }

    EventRetention<V> retention() {
        return retention;
    }

    WaitTimeoutException timedOut(long timeoutMs) {
        if (purgatory.isClosed()) {
            return new WaitTimeoutException("keyed waits '" + name() + "' closed before an event answered the wait",
                    true);
        }
        return new WaitTimeoutException("no event answered the wait in '" + name() + "' within " + timeoutMs
                + " ms", false);
    }

    private CompletableFuture<V> submit(Object keys, Duration timeout, Predicate<? super V> until, Object fallback,
                                        long atLeast) {
        long timeoutMs = Durations.toMillis(timeout, "timeout");
        KeyedWait<V> wait = new KeyedWait<>(this, timeoutMs, retention == null ? null : keys, until, fallback,
                atLeast);
        if (atLeast != NO_POSITION) {
            purgatory.tryCompleteElseWatch(wait, keys, atLeast);
        } else {
            purgatory.tryCompleteElseWatch(wait, keys instanceof Object[] all ? List.of(all) : List.of(keys));
        }
        return wait.future();
    }

    private static boolean offer(DelayedOperation op, Object value, long position) {
        @SuppressWarnings("unchecked") // the purgatory holds only KeyedWait<V>, and complete takes a V
        KeyedWait<Object> wait = (KeyedWait<Object>) op;
        return wait.offer(value, position);
    }

    /** The visit of an event at a position. */
    private record PositionedOffer(long position) implements WatcherList.Visitor {
        @Override
        public boolean visit(DelayedOperation op, Object value) {
            return offer(op, value, position);
        }
    }

    private static boolean fail(DelayedOperation op, Object error) {
        return ((KeyedWait<?>) op).fail((Throwable) error);
    }

    /**
     * One wait being described: its key or keys, then optionally the predicate an event must
     * satisfy and the value to complete with at the timeout; {@link #await} submits it. Not
     * thread-safe; each {@code await} submits a new wait.
     *
     * @param <K> the key type
     * @param <V> the event value type
     */
    public static final class Await<K, V> {
        private final KeyedWaits<K, V> waits;
        private final Object keys;
        private Predicate<? super V> until;
        private Object fallback = KeyedWait.noFallback();
        private long atLeast = NO_POSITION;

        Await(KeyedWaits<K, V> waits, Object keys) {
            this.waits = waits;
            this.keys = keys;
        }

        /** Only an event whose value {@code until} accepts answers the wait (default: any event). */
        public Await<K, V> until(Predicate<? super V> until) {
            this.until = Objects.requireNonNull(until, "until");
            return this;
        }

        /**
         * Only an event that carries a position of at least {@code position} answers the wait
         * ({@link KeyedWaits#complete(Object, Object, long)}): "until the config's version is 7".
         * Positional checks skip the wait until then, so a key with many such waits costs
         * O(answered + log pending) per event. One key only.
         *
         * @throws IllegalArgumentException if the wait is on several keys, or {@code position} is
         *         {@code Long.MIN_VALUE}
         */
        public Await<K, V> atLeast(long position) {
            if (keys instanceof Object[]) {
                throw new IllegalArgumentException("atLeast(position) waits on one key; this wait is on several");
            }
            if (position == NO_POSITION) {
                throw new IllegalArgumentException("position must be above Long.MIN_VALUE: " + position);
            }
            this.atLeast = position;
            return this;
        }

        /** At the timeout the future completes with {@code fallback} (may be null) instead of failing. */
        public Await<K, V> orElse(V fallback) {
            this.fallback = fallback;
            return this;
        }

        /**
         * Submits the wait, for at most {@code timeout} (zero or less: answered only by a retained
         * early event, else it times out at once). The future is already complete if a retained
         * event answered it.
         *
         * @throws NullPointerException if {@code timeout} is null
         * @throws IllegalStateException if the waits are closed
         * @throws PurgatoryFullException if {@code maxPending} waits are pending
         */
        public CompletableFuture<V> await(Duration timeout) {
            return waits.submit(keys, timeout, until, fallback, atLeast);
        }
    }

    /**
     * Builds {@link KeyedWaits}. Defaults are those of {@link PurgatoryBuilder} (its own timer and
     * reaper), except the close policy, which may be {@code EXPIRE} (default) or {@code CANCEL};
     * no early events. Not thread-safe.
     */
    public static final class Builder {
        private final PurgatoryBuilder<KeyedWait<?>> purgatory;
        private long retainWindowMs;
        private int retainMaxEntries;
        private MetricsRecorderFactory metrics;

        Builder(String name) {
            this.purgatory = new PurgatoryBuilder<>(name);
        }

        /**
         * Keeps the last event of each key for {@code window}, at most {@code maxEntries} keys (the
         * oldest event goes first), so a wait registered within the window completes at once.
         *
         * @throws IllegalArgumentException if {@code window} is not positive or {@code maxEntries} is below 1
         */
        public Builder retainEvents(Duration window, int maxEntries) {
            long windowMs = Durations.toMillis(window, "window");
            if (windowMs <= 0) {
                throw new IllegalArgumentException("window must be positive: " + window);
            }
            if (maxEntries < 1) {
                throw new IllegalArgumentException("maxEntries must be >= 1: " + maxEntries);
            }
            this.retainWindowMs = windowMs;
            this.retainMaxEntries = maxEntries;
            return this;
        }

        /**
         * Uses {@code timer} instead of an own one (not closed by the waits). A {@link ManualTimer}
         * is advanced by the test, so no reaper thread is started for it.
         */
        public Builder timer(Timer timer) {
            purgatory.timer(timer);
            if (timer instanceof ManualTimer) {
                purgatory.reaperEnabled(false);
            }
            return this;
        }

        /**
         * Runs the waits on {@code runtime}'s timer, driver thread and expiration executor, shared
         * with the other purgatories and waits built on it (see {@link PurgatoryRuntime}).
         */
        public Builder runtime(PurgatoryRuntime runtime) {
            purgatory.runtime(runtime);
            return this;
        }

        /** The clock of the own timer and of the duration metrics (see {@link PurgatoryBuilder#clock}). */
        public Builder clock(Clock clock) {
            purgatory.clock(clock);
            return this;
        }

        /**
         * Binds the metrics with {@code factory} when the waits are built: the purgatory's and,
         * with {@code retainEvents}, the retention's (see {@link MetricsSource#retainsEvents()}).
         */
        public Builder metrics(MetricsRecorderFactory factory) {
            this.metrics = java.util.Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Receives the errors of predicates and of the waits' callbacks (default: the process-wide handler). */
        public Builder errorHandler(OperationErrorHandler errorHandler) {
            purgatory.errorHandler(errorHandler);
            return this;
        }

        /** At most this many pending waits; beyond, {@code await} throws {@link PurgatoryFullException}. */
        public Builder maxPending(int maxPending) {
            purgatory.maxPending(maxPending);
            return this;
        }

        /** {@code EXPIRE} (default: answered as at the timeout) or {@code CANCEL}; {@code COMPLETE} is refused. */
        public Builder closePolicy(ClosePolicy closePolicy) {
            purgatory.closePolicy(closePolicy);
            return this;
        }

        /** Shards of the key space (see {@link PurgatoryBuilder#shards}). */
        public Builder shards(int shards) {
            purgatory.shards(shards);
            return this;
        }

        /** Builds the waits; {@code K} and {@code V} are inferred from the assignment. */
        public <K, V> KeyedWaits<K, V> build() {
            return new KeyedWaits<>(this);
        }
    }
}
