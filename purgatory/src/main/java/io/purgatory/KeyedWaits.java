package io.purgatory;

import io.purgatory.internal.KeyedEvents;
import io.purgatory.internal.Visit;
import io.purgatory.internal.Visitor;
import io.purgatory.internal.WatchKeys;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.Collection;
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
 * do not compile together; {@code build()} takes the types from the variable it is assigned to
 * (with {@code var} nothing states them, and the first {@code await} or {@code complete} does not
 * compile: write the type). A key
 * is always one key, whatever its type (an array too); a wait on several keys says so:
 * {@link #onAny}, {@link #awaitAny}. Keys need consistent {@code equals} and {@code hashCode};
 * values may be null.
 *
 * <p><b>Ending a wait.</b> Each wait is settled exactly once, by the first of: an event its
 * predicate accepts ({@link #complete}), an error ({@link #completeExceptionally}), its timeout
 * ({@link TimeoutException} or the fallback), a completion or cancellation of its future from
 * outside (a web framework cancelling it when the client goes away, {@code orTimeout}...), or
 * {@link #close()} (by the close policy: by default a {@link WaitTimeoutException} whose
 * {@code closed()} is true, or the fallback; or cancelled). Whatever ends
 * it, the wait leaves its keys and the timer at once: nothing stays pending until its timeout.
 *
 * <p><b>Early events</b> ({@link KeyedWaitsBuilder#retainEvents}): the last value handed over for each key is
 * kept for a window, so a wait registered within that window completes at once with it, if its
 * predicate accepts it. This closes the race in which the event beats the wait. Without retention,
 * an event answers only the waits registered when it arrives.
 *
 * <p><b>Events that found no one</b> are counted, never by key, and told to a listener of yours
 * if you give one ({@link KeyedWaitsBuilder#unansweredEvents}): an event is <em>late</em> if it
 * answered no wait and a wait on its key timed out or was cancelled within the window of
 * {@link KeyedWaitsBuilder#lateEvents} before it; else <em>unanswered</em> if it answered no wait
 * (with early events: none registered within its window either, told when it leaves the window).
 *
 * <p><b>Threads.</b> Thread-safe. A future completes on the thread that settles its wait: the
 * caller of {@code complete}, {@code completeExceptionally} or {@code close}, the caller of
 * {@code await} when an early event answers it at once (the future is then done when
 * {@code await} returns, also inside another wait's callback), or an expiration thread at the
 * timeout. Dependent stages without {@code Async} run there too, so keep them short or use the
 * {@code *Async} stages. Predicates run on the thread handing over the event, possibly on several
 * threads at once, with no lock held: they must be quick, thread-safe and free of side effects;
 * one that throws counts as "not this value" and its error goes to the error handler.
 *
 * <p>A wait costs one operation of the purgatory engine and its future.
 *
 * @param <K> the key type
 * @param <V> the event value type
 */
public final class KeyedWaits<K, V> extends EngineFacade {

    private final KeyedEvents<V> events;
    private static final Visitor OFFER = (op, value) -> ((KeyedWait<?>) op).offer(value, KeyedWait.NO_POSITION);
    private static final Visitor FAIL = (op, error) -> ((KeyedWait<?>) op).fail((Throwable) error);

    /**
     * Waits with {@code settings} (whose metrics are not set: the waits bind {@code metrics}, if not
     * null, once their events exist), retaining early events for {@code retainWindowMs} if positive,
     * telling late events within {@code lateWindowMs} if positive, and the unanswered ones to
     * {@code listener} if not null.
     */
    KeyedWaits(EngineSettings settings, MetricsRecorderFactory metrics, long retainWindowMs, int retainMaxEntries,
               long lateWindowMs, int lateMaxKeys, UnansweredEventListener listener) {
        super(checkClosePolicy(settings));
        this.events = new KeyedEvents<>(settings.name, engine.runtime(), retainWindowMs, retainMaxEntries,
                lateWindowMs, lateMaxKeys, Bridges.events(listener));
        Bridges.bindAtBuild(engine, metrics, events);
    }

    /** {@code settings}, unless their close policy is COMPLETE: no value to complete a keyed wait with. */
    private static EngineSettings checkClosePolicy(EngineSettings settings) {
        if (settings.closePolicy == ClosePolicy.COMPLETE) {
            throw new IllegalArgumentException("closePolicy COMPLETE has no value to complete a keyed wait with:"
                    + " use EXPIRE (the timeout's answer) or CANCEL");
        }
        return settings;
    }

    /**
     * Starts a builder of keyed waits named {@code name} (the name of its purgatory and meters).
     * The key and value types come from the variable {@code build()} is assigned to.
     */
    public static KeyedWaitsBuilder builder(String name) {
        return new KeyedWaitsBuilder(name);
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

    /**
     * A wait on {@code key}, one key whatever its type, to refine ({@link Await#until},
     * {@link Await#orElse}) and then {@link Await#await}.
     */
    public Await<K, V> on(K key) {
        return new Await<>(this, WatchKeys.check(Objects.requireNonNull(key, "key"), 0), null);
    }

    /**
     * A wait on several keys, answered by the first accepted event on any of them.
     *
     * @throws NullPointerException if {@code keys} or one of them is null
     * @throws IllegalArgumentException if {@code keys} is empty
     */
    public Await<K, V> onAny(Collection<? extends K> keys) {
        Object[] distinct = WatchKeys.distinct(keys);
        return distinct.length == 1 ? new Await<>(this, distinct[0], null) : new Await<>(this, null, distinct);
    }

    /**
     * Hands {@code value} to every wait on {@code key} whose predicate accepts it, and, with early
     * events on, keeps it as the key's last event for the window. Returns how many waits it
     * answered. After {@link #close()}, does nothing and returns 0.
     */
    public int complete(K key, V value) {
        return handOver(key, value, KeyedWait.NO_POSITION, OFFER);
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
        return handOver(key, value, KeyedWait.position(position), (op, v) -> ((KeyedWait<?>) op).offer(v, position));
    }

    private int handOver(K key, V value, long position, Visitor visitor) {
        Objects.requireNonNull(key, "key");
        return engine.isClosed() ? 0 : events.handOver(engine, key, value, position, visitor);
    }

    /**
     * Fails every wait on {@code key} with {@code error}; returns how many. Errors are not
     * retained. After {@link #close()}, does nothing and returns 0.
     */
    public int completeExceptionally(K key, Throwable error) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(error, "error");
        return engine.isClosed() ? 0 : engine.visit(key, Visit.ALL, 0L, error, FAIL); // every wait, positioned or not
    }

    /** Pending waits. O(1). */
    public int pending() {
        return engine.counters().pending();
    }

    /** Early events retained now (0 without retention). */
    public int retainedEvents() {
        return events.retention() == null ? 0 : events.retention().size();
    }

    /**
     * Binds the metrics of the waits with {@code factory}: the purgatory's, the events that found
     * no wait ({@link MetricsSource#eventsUnanswered()}, {@link MetricsSource#eventsLate()}) and,
     * with {@code retainEvents}, the retention's (see {@link MetricsSource#retainsEvents()}).
     *
     * @throws IllegalStateException if metrics are already bound, or the waits are closed
     */
    @Override
    public void bindMetrics(MetricsRecorderFactory factory) {
        Bridges.bind(engine, factory, events);
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
        return events.retention() == null ? Duration.ZERO : Duration.ofMillis(events.retention().windowMs());
    }

    /**
     * Answers every pending wait by the close policy (default: as its timeout would, else
     * cancelled), drops the retained events, stops the timer if it is the waits' own and removes
     * the meters; returns once the futures it answered are done (see
     * {@link DelayedOperationPurgatory#close()}). Idempotent. Afterwards {@code await} returns a future
     * failed with {@link IllegalStateException} and {@code complete} does nothing.
     */
    @Override
    public void close() {
        super.close();
    }

    /** The events side: early events, recent ends, events that found no wait (tests). */
    KeyedEvents<V> events() {
        return events;
    }

    /** The engine's close, after its sweep: the early events and the recent ends go too. */
    @Override
    void engineClosed() {
        events.close();
    }

    private CompletableFuture<V> submit(Object key, Object[] keys, Duration timeout, Predicate<? super V> until,
                                        Object fallback, long atLeast) {
        long timeoutMs = Timer.toMs(Objects.requireNonNull(timeout, "timeout"));
        events.probe(key, keys); // a key that throws against a retained event fails this call, not the wait's try
        KeyedWait<V> wait = new KeyedWait<>(timeoutMs, events.retention(), events.ends(), key, keys, until, fallback,
                atLeast);
        try {
            if (atLeast != KeyedWait.NO_POSITION) {
                engine.submit(wait, new Object[] {key}, new long[] {atLeast});
            } else if (key != null) {
                engine.submit(wait, key);
            } else {
                engine.submit(wait, keys, null);
            }
        } catch (PurgatoryFullException | IllegalStateException fullOrClosed) { // the future's failure, not the call's
            return CompletableFuture.failedFuture(fullOrClosed);
        }
        return wait.answeredFuture();
    }

    /**
     * One wait being described: its key (or keys), then optionally the predicate an event must
     * satisfy and the value to complete with at the timeout; {@link #await} submits it. Not
     * thread-safe; each {@code await} submits a new wait.
     *
     * @param <K> the key type
     * @param <V> the event value type
     */
    public static final class Await<K, V> {
        private final KeyedWaits<K, V> waits;
        /** The one key, or null if the wait is on several. */
        private final Object key;
        /** The distinct keys of a wait on several, or null. */
        private final Object[] keys;
        private Predicate<? super V> until;
        private Object fallback = KeyedWait.NONE;
        private long atLeast = KeyedWait.NO_POSITION;

        Await(KeyedWaits<K, V> waits, Object key, Object[] keys) {
            this.waits = waits;
            this.key = key;
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
            if (key == null) {
                throw new IllegalArgumentException("atLeast(position) waits on one key; this wait is on "
                        + keys.length);
            }
            this.atLeast = KeyedWait.position(position);
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
         * The future fails at once, with {@link PurgatoryFullException}, if {@code maxPending} waits
         * are pending, or with {@link IllegalStateException} if the waits are closed.
         *
         * @throws NullPointerException if {@code timeout} is null
         */
        public CompletableFuture<V> await(Duration timeout) {
            return waits.submit(key, keys, timeout, until, fallback, atLeast);
        }
    }
}
