package io.purgatory;

import io.purgatory.internal.Operation;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Builds {@link KeyedWaits}: {@code KeyedWaits<OrderId, Payment> waits = KeyedWaits.builder("payments")
 * .retainEvents(Duration.ofSeconds(30), 100_000).build();}. Defaults are those of
 * {@link PurgatoryBuilder} (its own timer and reaper), except the close policy, which may be
 * {@code EXPIRE} (default) or {@code CANCEL}; no early events, no late events, no listener of the
 * events that found no wait. Not thread-safe.
 */
public final class KeyedWaitsBuilder {
    private final EngineSettings settings;
    private long retainWindowMs;
    private int retainMaxEntries;
    private long lateWindowMs;
    private int lateMaxKeys;
    private UnansweredEventListener unansweredListener;
    /** Bound by the waits once their events exist, so not in the settings (whose metrics the engine's build binds). */
    private MetricsRecorderFactory metrics;

    KeyedWaitsBuilder(String name) {
        this.settings = new EngineSettings(name);
    }

    /**
     * Keeps the last event of each key for {@code window}, at most {@code maxEntries} keys (the
     * oldest event goes first), so a wait registered within the window completes at once.
     *
     * @throws IllegalArgumentException if {@code window} is not positive or {@code maxEntries} is below 1
     */
    public KeyedWaitsBuilder retainEvents(Duration window, int maxEntries) {
        this.retainWindowMs = windowMs(window, maxEntries, "maxEntries");
        this.retainMaxEntries = maxEntries;
        return this;
    }

    /**
     * Tells an event <em>late</em> when it answers no wait and a wait on its key timed out or was
     * cancelled within {@code window} before it (counted as {@code purgatory.events.late} and told
     * to the {@link #unansweredEvents listener}), rather than unanswered. Remembers the keys of at
     * most {@code maxKeys} such ends, the oldest forgotten first; each is forgotten when its
     * window ends. Memory: one entry (the key and a timer entry) per key remembered. Default: no
     * event is late.
     *
     * @throws IllegalArgumentException if {@code window} is not positive or {@code maxKeys} is below 1
     */
    public KeyedWaitsBuilder lateEvents(Duration window, int maxKeys) {
        this.lateWindowMs = windowMs(window, maxKeys, "maxKeys");
        this.lateMaxKeys = maxKeys;
        return this;
    }

    /**
     * Tells {@code listener} of each event that found no wait, late or unanswered (see
     * {@link UnansweredEventListener.Kind}): to route it to a log or a dead-letter topic. They are
     * counted whether or not a listener is given. Whatever the listener throws is logged and
     * changes nothing: {@code complete} still returns normally.
     */
    public KeyedWaitsBuilder unansweredEvents(UnansweredEventListener listener) {
        this.unansweredListener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Uses {@code timer} instead of an own one (not closed by the waits). A {@link ManualTimer}
     * is advanced by the test, so no reaper thread is started for it: due waits are answered
     * on the test's thread before {@code advanceClock} returns.
     */
    public KeyedWaitsBuilder timer(Timer timer) {
        settings.timer(timer);
        return this;
    }

    /**
     * Runs the waits on {@code runtime}'s timer, driver thread and expiration executor, shared
     * with the other purgatories and waits built on it (see {@link PurgatoryRuntime}).
     */
    public KeyedWaitsBuilder runtime(PurgatoryRuntime runtime) {
        settings.runtime(runtime);
        return this;
    }

    /**
     * The tick, wheel size and back-pressure of the waits' own timer (see
     * {@link PurgatoryBuilder#timerSettings}: with back-pressure, {@code await} waits for expiries to
     * catch up before it is taken; {@code complete} and the windows of early and late events never do).
     */
    public KeyedWaitsBuilder timerSettings(TimerSettings timerSettings) {
        settings.timerSettings(timerSettings);
        return this;
    }

    /**
     * The clock of the own timer and of the duration metrics (see {@link PurgatoryBuilder#clock}:
     * a {@link io.purgatory.timer.ManualClock} is refused; use {@link #timer} with a
     * {@link ManualTimer} for tests).
     */
    public KeyedWaitsBuilder clock(Clock clock) {
        settings.clock(clock);
        return this;
    }

    /**
     * Binds the metrics with {@code factory} when the waits are built: the purgatory's and,
     * with {@code retainEvents}, the retention's (see {@link MetricsSource#retainsEvents()}).
     */
    public KeyedWaitsBuilder metrics(MetricsRecorderFactory factory) {
        this.metrics = Objects.requireNonNull(factory, "factory");
        return this;
    }

    /**
     * Watches each wait from {@code await} to its end (default: none; nothing allocated). With
     * Micrometer: {@code observer(MicrometerObservations.of(observationRegistry))}.
     */
    public KeyedWaitsBuilder observer(WaitObserver observer) {
        settings.observer(observer);
        return this;
    }

    /** Receives the errors of predicates and of the waits' callbacks (default: the process-wide handler). */
    public KeyedWaitsBuilder errorHandler(OperationErrorHandler errorHandler) {
        settings.errorHandler(errorHandler);
        return this;
    }

    /** At most this many pending waits; beyond,
            {@code await} returns a future failed with {@link PurgatoryFullException}. */
    public KeyedWaitsBuilder maxPending(int maxPending) {
        settings.maxPending(maxPending);
        return this;
    }

    /**
     * Bounds each tenant's pending waits at {@code maxPendingPerTenant}, beside {@link #maxPending}:
     * a wait's tenant is what {@code tenantOfKey} gives its key (the first of {@code awaitAny}'s);
     * beyond its tenant's bound, {@code await} returns a future failed with
     * {@link TenantFullException}, so one tenant's flood is refused, not queued. See
     * {@link PurgatoryBuilder#tenants} for the function's contract; type its parameter to type the
     * key: {@code tenants((OrderId id) -> id.customer(), 1_000)}.
     *
     * @param <K> the key type of the waits built
     * @throws NullPointerException if {@code tenantOfKey} is null
     * @throws IllegalArgumentException if {@code maxPendingPerTenant} is below 1
     */
    public <K> KeyedWaitsBuilder tenants(Function<? super K, ?> tenantOfKey, int maxPendingPerTenant) {
        Objects.requireNonNull(tenantOfKey, "tenantOfKey");
        @SuppressWarnings("unchecked") // the waits built take K keys, if the target's K is the function's
        BiFunction<Operation, Object, Object> ofWait = (wait, firstKey) -> tenantOfKey.apply((K) firstKey);
        settings.tenants(ofWait, maxPendingPerTenant);
        return this;
    }

    /** {@code EXPIRE} (default: answered as at the timeout) or {@code CANCEL}; {@code COMPLETE} is refused. */
    public KeyedWaitsBuilder closePolicy(ClosePolicy closePolicy) {
        settings.closePolicy(closePolicy);
        return this;
    }

    /** Shards of the key space (see {@link PurgatoryBuilder#shards}). */
    public KeyedWaitsBuilder shards(int shards) {
        settings.shards(shards);
        return this;
    }

    /** {@code window} in ms, checked positive, with its bound {@code max}, checked at least 1. */
    private static long windowMs(Duration window, int max, String maxName) {
        long windowMs = Timer.toMs(Objects.requireNonNull(window, "window"));
        if (windowMs <= 0) {
            throw new IllegalArgumentException("window must be positive: " + window);
        }
        if (max < 1) {
            throw new IllegalArgumentException(maxName + " must be >= 1: " + max);
        }
        return windowMs;
    }

    /**
     * Builds the waits, typed by the variable (or the parameter, or the return type) the result
     * goes to: {@code KeyedWaits<OrderId, Payment> w = KeyedWaits.builder("x").build();}. With
     * {@code var} nothing states the types: the result then takes no key and no value, so the
     * first {@code await} or {@code complete} on it does not compile, instead of accepting an
     * {@code Integer} key in one place and a {@code String} in another.
     *
     * @param <W> the waits' type, as the target gives it
     * @throws IllegalArgumentException if settings conflict (see {@link PurgatoryBuilder#build()}),
     *         or the close policy is {@code COMPLETE}
     * @throws IllegalStateException if the runtime given is closed
     */
    // W is bounded by a final class, so it is KeyedWaits<K, V> for the target's K and V: the cast is sound,
    // and a W left to its bound (var) is the point: waits that take no key or value.
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    public <W extends KeyedWaits<?, ?>> W build() {
        return (W) new KeyedWaits<>(settings, metrics, retainWindowMs, retainMaxEntries, lateWindowMs, lateMaxKeys,
                unansweredListener);
    }
}
