package io.purgatory;

import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerGeometry;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * Builds a {@link DelayedOperationPurgatory}: {@code DelayedOperationPurgatory<MyOp> p =
 * DelayedOperationPurgatory.builder("name").maxPending(10_000).build();}, the operation type
 * inferred from the assignment. Defaults are Kafka's: the purgatory's own timer
 * (1 ms tick, 20 buckets per wheel), 512 shards, purge interval 1000, reaper on, timer on; plus
 * ours: no limit on pending operations, operations expired on close, errors to the process-wide
 * handler ({@link OperationErrorHandler#processDefault()}: logged), no metrics.
 * Not thread-safe.
 *
 * <p>For deterministic tests, give it a {@link ManualTimer} and turn the reaper off: the test
 * then moves time with {@code timer.advanceClock(ms)} and every due operation expires on the
 * test's thread before that call returns. To share one timer and its threads among purgatories,
 * give each the same {@link PurgatoryRuntime}.
 */
public final class PurgatoryBuilder<T extends DelayedOperation> {

    /** The default number of shards of a purgatory's key space, as Kafka's. */
    public static final int DEFAULT_SHARDS = 512;
    static final int DEFAULT_PURGE_INTERVAL = 1000;

    final String name;
    int shards = DEFAULT_SHARDS;
    int purgeInterval = DEFAULT_PURGE_INTERVAL;
    boolean reaperEnabled = true;
    boolean timerEnabled = true;
    int maxPending;
    ClosePolicy closePolicy = ClosePolicy.EXPIRE;
    OperationErrorHandler errorHandler = OperationErrorHandler.processDefault();
    MetricsRecorderFactory metrics;
    private PurgatoryRuntime runtime;
    private Timer timer;
    private TimerGeometry geometry = TimerGeometry.DEFAULT;
    /** The settings of the purgatory's own timer given, by name, for the messages of conflicts. */
    private final Set<String> ownTimerSettings = new LinkedHashSet<>();
    private Executor expirationExecutor;
    private Clock clock;

    PurgatoryBuilder(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        this.name = name;
    }

    /**
     * Uses {@code timer} instead of the purgatory's own; the purgatory adds operations to it but
     * does not close it. With a {@link ManualTimer}, turn the reaper off.
     */
    public PurgatoryBuilder<T> timer(Timer timer) {
        this.timer = Objects.requireNonNull(timer, "timer");
        return this;
    }

    /**
     * Runs the purgatory on {@code runtime}, sharing its timer, driver thread and expiration
     * executor with the other purgatories on it, instead of a set of its own. The purgatory keeps
     * its own name, counters, metrics and close; the runtime closes it if it is still open when the
     * runtime closes. Not combinable with the settings of the purgatory's own timer ({@code timer},
     * {@code tickMs}, {@code wheelSize}, {@code geometry}, {@code expirationExecutor}, {@code clock},
     * {@code timerEnabled(false)}, {@code reaperEnabled(false)}).
     */
    public PurgatoryBuilder<T> runtime(PurgatoryRuntime runtime) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        return this;
    }

    /** Tick of the purgatory's own timer, in ms (default 1; bounds as {@link TimerGeometry}'s). */
    public PurgatoryBuilder<T> tickMs(long tickMs) {
        this.geometry = geometry.withTickMs(tickMs);
        ownTimerSettings.add("tickMs");
        return this;
    }

    /**
     * Tick of the purgatory's own timer (default 1 ms), in ms by the duration rule of {@link Timer}
     * (rounded up); bounds as {@link TimerGeometry}'s.
     *
     * @throws NullPointerException if {@code tick} is null
     */
    public PurgatoryBuilder<T> tick(Duration tick) {
        return tickMs(Timer.toMs(Objects.requireNonNull(tick, "tick")));
    }

    /** Buckets per wheel of the purgatory's own timer (default 20; bounds as {@link TimerGeometry}'s). */
    public PurgatoryBuilder<T> wheelSize(int wheelSize) {
        this.geometry = geometry.withWheelSize(wheelSize);
        ownTimerSettings.add("wheelSize");
        return this;
    }

    /** Tick and wheel size of the purgatory's own timer (default {@link TimerGeometry#DEFAULT}). */
    public PurgatoryBuilder<T> geometry(TimerGeometry geometry) {
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        ownTimerSettings.add("geometry");
        return this;
    }

    /** Number of shards of the key space, a power of two from 1 to 65536 (default 512). */
    public PurgatoryBuilder<T> shards(int shards) {
        if (shards < 1 || shards > (1 << 16) || Integer.bitCount(shards) != 1) {
            throw new IllegalArgumentException("shards must be a power of two from 1 to 65536: " + shards);
        }
        this.shards = shards;
        return this;
    }

    /** Operations settled between two purges, when a purge is needed at all (default 1000). */
    public PurgatoryBuilder<T> purgeInterval(int purgeInterval) {
        if (purgeInterval < 1) {
            throw new IllegalArgumentException("purgeInterval must be >= 1: " + purgeInterval);
        }
        this.purgeInterval = purgeInterval;
        return this;
    }

    /** Whether the purgatory runs a reaper thread to advance its timer (default true). */
    public PurgatoryBuilder<T> reaperEnabled(boolean reaperEnabled) {
        this.reaperEnabled = reaperEnabled;
        return this;
    }

    /** Whether operations are put on a timer at all; without one they never expire (default true). */
    public PurgatoryBuilder<T> timerEnabled(boolean timerEnabled) {
        this.timerEnabled = timerEnabled;
        return this;
    }

    /**
     * Where the purgatory's own timer runs expirations (default: a pool of 2 daemon threads
     * {@code <name>-expiration}, shut down on close). Not shut down by the purgatory.
     */
    public PurgatoryBuilder<T> expirationExecutor(Executor executor) {
        this.expirationExecutor = Objects.requireNonNull(executor, "executor");
        ownTimerSettings.add("expirationExecutor");
        return this;
    }

    /**
     * Binds the purgatory's metrics with {@code factory} when it is built (default: none; the
     * counters of {@code stats()} only). With Micrometer: {@code metrics(MicrometerMetrics.of(registry))}
     * from the {@code purgatory-micrometer} module.
     */
    public PurgatoryBuilder<T> metrics(MetricsRecorderFactory factory) {
        this.metrics = Objects.requireNonNull(factory, "factory");
        return this;
    }

    /**
     * Receives callback failures (default {@link OperationErrorHandler#processDefault()}: the
     * handler set for the whole process, which logs unless one was set).
     */
    public PurgatoryBuilder<T> errorHandler(OperationErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
        return this;
    }

    /** At most this many pending operations; beyond, {@link PurgatoryFullException}. 0: no limit (default). */
    public PurgatoryBuilder<T> maxPending(int maxPending) {
        if (maxPending < 0) {
            throw new IllegalArgumentException("maxPending must be >= 0 (0 means no limit): " + maxPending);
        }
        this.maxPending = maxPending;
        return this;
    }

    /** What close() does with pending operations (default {@link ClosePolicy#EXPIRE}). */
    public PurgatoryBuilder<T> closePolicy(ClosePolicy closePolicy) {
        this.closePolicy = Objects.requireNonNull(closePolicy, "closePolicy");
        return this;
    }

    /**
     * The clock for the purgatory's own timer and its duration metrics (default: the system clock, or a
     * ManualTimer's).
     */
    public PurgatoryBuilder<T> clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * Builds the purgatory. Its operation type is inferred from the assignment, so a chain needs no
     * type witness: {@code DelayedOperationPurgatory<MyOp> p = DelayedOperationPurgatory.builder("x")
     * .build();}. The builder's own type parameter only bounds it.
     *
     * @param <U> the type of operation the purgatory holds
     * @throws IllegalArgumentException if settings conflict: a given timer or runtime with settings of the
     *     purgatory's own timer (the message names them)
     * @throws IllegalStateException if the runtime given is closed
     */
    public <U extends T> DelayedOperationPurgatory<U> build() {
        if (runtime != null) {
            Set<String> conflicts = new LinkedHashSet<>();
            if (timer != null) {
                conflicts.add("timer(...)");
            }
            conflicts.addAll(ownTimerSettings);
            if (clock != null) {
                conflicts.add("clock");
            }
            if (!timerEnabled) {
                conflicts.add("timerEnabled(false)");
            }
            if (!reaperEnabled) {
                conflicts.add("reaperEnabled(false)");
            }
            if (!conflicts.isEmpty()) {
                throw new IllegalArgumentException("runtime(...) cannot be combined with " + conflicts + ": the"
                        + " runtime's timer, driver and executor serve every purgatory on it; configure them on"
                        + " PurgatoryRuntime.builder");
            }
        }
        if (timer != null) {
            if (!timerEnabled) {
                throw new IllegalArgumentException("timer(...) was given but timerEnabled is false");
            }
            if (!ownTimerSettings.isEmpty()) {
                throw new IllegalArgumentException("timer(...) cannot be combined with " + ownTimerSettings
                        + ": they configure the purgatory's own timer");
            }
            if (timer instanceof ManualTimer && reaperEnabled) {
                throw new IllegalArgumentException("a ManualTimer is advanced by its caller: build the"
                        + " purgatory with reaperEnabled(false)");
            }
        }
        return new DelayedOperationPurgatory<>(this);
    }

    /** True iff the purgatory runs on a runtime it was given, which it must not close. */
    boolean sharesRuntime() {
        return runtime != null;
    }

    /**
     * The runtime the purgatory runs on: the one given, else a private one it owns and closes, on
     * the given timer (driven by its reaper, if enabled, never closed), an idle timer (timer
     * disabled: the reaper only runs the purge policy), or its own timer and executor.
     * {@code errorHandler} receives the refusals of its own timer's executor.
     */
    PurgatoryRuntime runtimeOrOwn(TaskErrorHandler errorHandler) {
        if (runtime != null) {
            return runtime;
        }
        if (timer != null) {
            Clock c = clock != null ? clock : timer instanceof ManualTimer m ? m.clock() : Clock.system();
            return PurgatoryRuntime.givenTimer(name, timer, c, reaperEnabled);
        }
        Clock c = clock != null ? clock : Clock.system();
        if (!timerEnabled) {
            return PurgatoryRuntime.idleTimer(name, c, reaperEnabled);
        }
        return PurgatoryRuntime.ownTimer(name, geometry, c, expirationExecutor, errorHandler, reaperEnabled);
    }
}
