package io.purgatory;

import io.micrometer.core.instrument.MeterRegistry;
import io.purgatory.timer.Clock;
import io.purgatory.timer.DaemonThreads;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerGeometry;
import io.purgatory.timer.TimerTask;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Builds a {@link DelayedOperationPurgatory}. Defaults are Kafka's: the purgatory's own timer
 * (1 ms tick, 20 buckets per wheel), 512 shards, purge interval 1000, reaper on, timer on; plus
 * ours: no limit on pending operations, operations expired on close, errors logged, no metrics.
 * Not thread-safe.
 *
 * <p>For deterministic tests, give it a {@link ManualTimer} and turn the reaper off: the test
 * then moves time with {@code timer.advanceClock(ms)} and every due operation expires on the
 * test's thread before that call returns.
 */
public final class PurgatoryBuilder<T extends DelayedOperation> {

    static final int DEFAULT_SHARDS = 512;
    static final int DEFAULT_PURGE_INTERVAL = 1000;
    static final int DEFAULT_EXPIRATION_THREADS = 2;

    final String name;
    int shards = DEFAULT_SHARDS;
    int purgeInterval = DEFAULT_PURGE_INTERVAL;
    boolean reaperEnabled = true;
    boolean timerEnabled = true;
    int maxPending;
    ClosePolicy closePolicy = ClosePolicy.EXPIRE;
    OperationErrorHandler errorHandler = OperationErrorHandler.logging();
    MeterRegistry meterRegistry;
    private Timer timer;
    private TimerGeometry geometry = TimerGeometry.DEFAULT;
    private boolean geometrySet;
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

    /** Tick of the purgatory's own timer, in ms (default 1; bounds as {@link TimerGeometry}'s). */
    public PurgatoryBuilder<T> tickMs(long tickMs) {
        return geometry(geometry.withTickMs(tickMs));
    }

    /** Buckets per wheel of the purgatory's own timer (default 20; bounds as {@link TimerGeometry}'s). */
    public PurgatoryBuilder<T> wheelSize(int wheelSize) {
        return geometry(geometry.withWheelSize(wheelSize));
    }

    /** Tick and wheel size of the purgatory's own timer (default {@link TimerGeometry#DEFAULT}). */
    public PurgatoryBuilder<T> geometry(TimerGeometry geometry) {
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        this.geometrySet = true;
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
        return this;
    }

    /** Binds the purgatory's meters to {@code registry} (default: none; counters only). */
    public PurgatoryBuilder<T> meterRegistry(MeterRegistry registry) {
        this.meterRegistry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /** Receives callback failures (default {@link OperationErrorHandler#logging()}). */
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
     * A new purgatory with this configuration.
     *
     * @throws IllegalArgumentException if the settings contradict each other (a given timer with
     *     settings of the purgatory's own timer, or a {@code ManualTimer} with the reaper enabled)
     */
    public DelayedOperationPurgatory<T> build() {
        if (timer != null) {
            if (!timerEnabled) {
                throw new IllegalArgumentException("timer(...) was given but timerEnabled is false");
            }
            if (geometrySet || expirationExecutor != null) {
                throw new IllegalArgumentException("tickMs, wheelSize and expirationExecutor configure the"
                        + " purgatory's own timer; they cannot be combined with timer(...)");
            }
            if (timer instanceof ManualTimer && reaperEnabled) {
                throw new IllegalArgumentException("a ManualTimer is advanced by its caller: build the"
                        + " purgatory with reaperEnabled(false)");
            }
        }
        return new DelayedOperationPurgatory<>(this);
    }

    /**
     * The timer the purgatory uses (null if none), whether it owns it, the timer its reaper drives
     * and closes (the own timer; a view of a given timer that does not close it; an idle timer when
     * there is none, so the purge policy still runs), and the clock of its durations.
     */
    record TimerSetup(Timer timer, boolean owned, ExecutorService ownedExecutor, Timer reaperTimer, Clock clock) {
    }

    /** {@code errorHandler} is given to the purgatory's own timer, if it makes one. */
    TimerSetup timerSetup(TaskErrorHandler errorHandler) {
        if (timer != null) {
            Clock c = clock != null ? clock : timer instanceof ManualTimer m ? m.clock() : Clock.system();
            return new TimerSetup(timer, false, null, new Unclosed(timer), c);
        }
        Clock c = clock != null ? clock : Clock.system();
        if (!timerEnabled) {
            Timer idle = SystemTimer.builder(name).clock(c).executor(Runnable::run).build();
            return new TimerSetup(null, false, null, idle, c);
        }
        ExecutorService owned = null;
        Executor executor = expirationExecutor;
        if (executor == null) {
            owned = new ThreadPoolExecutor(DEFAULT_EXPIRATION_THREADS, DEFAULT_EXPIRATION_THREADS, 0L,
                    TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), DaemonThreads.factory(name + "-expiration"));
            executor = owned;
        }
        SystemTimer own = SystemTimer.builder(name).geometry(geometry).clock(c)
                .executor(executor).errorHandler(errorHandler).build();
        return new TimerSetup(own, true, owned, own, c);
    }

    /** A timer passed in, as the reaper sees it: driven, never closed (its owner closes it). */
    private record Unclosed(Timer timer) implements Timer {
        @Override
        public void add(TimerTask task) {
            timer.add(task);
        }

        @Override
        public boolean advanceClock(long timeoutMs) throws InterruptedException {
            return timer.advanceClock(timeoutMs);
        }

        @Override
        public int size() {
            return timer.size();
        }

        @Override
        public void close() {
        }
    }
}
