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
 * What the public builders ({@link PurgatoryBuilder}, {@link KeyedWaitsBuilder}) collect for an
 * {@link Engine}: each setting validated as it is given, naming the argument and the value, and
 * the conflicts between them checked once at build. Not thread-safe, as the builders.
 */
final class EngineSettings {

    static final int DEFAULT_SHARDS = 512;
    static final int DEFAULT_PURGE_INTERVAL = 1000;
    static final int MAX_SHARDS = 1 << 16;

    final String name;
    int shards = DEFAULT_SHARDS;
    int purgeInterval = DEFAULT_PURGE_INTERVAL;
    private boolean reaperEnabled = true;
    /** Whether reaperEnabled was given: a ManualTimer turns the reaper off unless it was asked for. */
    private boolean reaperGiven;
    boolean timerEnabled = true;
    int maxPending;
    ClosePolicy closePolicy = ClosePolicy.EXPIRE;
    OperationErrorHandler errorHandler = OperationErrorHandler.processDefault();
    MetricsRecorderFactory metrics;
    WaitObserver observer;
    PurgatoryRuntime runtime;
    private Timer timer;
    private TimerGeometry geometry = TimerGeometry.DEFAULT;
    /** The settings of the own timer given, by name, for the messages of conflicts. */
    private final Set<String> ownTimerSettings = new LinkedHashSet<>();
    private Executor expirationExecutor;
    private Clock clock;
    /** The own timer's back-pressure bound; null: none. */
    private Duration backPressure;

    EngineSettings(String name) {
        this.name = PurgatoryRuntime.checkName(name);
    }

    void timer(Timer timer) {
        this.timer = Objects.requireNonNull(timer, "timer");
    }

    void runtime(PurgatoryRuntime runtime) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    void geometry(TimerGeometry geometry, String setting) {
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        ownTimerSettings.add(setting);
    }

    TimerGeometry geometry() {
        return geometry;
    }

    void shards(int shards) {
        if (shards < 1 || shards > MAX_SHARDS || Integer.bitCount(shards) != 1) {
            throw new IllegalArgumentException("shards must be a power of two from 1 to " + MAX_SHARDS + ": " + shards);
        }
        this.shards = shards;
    }

    void purgeInterval(int purgeInterval) {
        if (purgeInterval < 1) {
            throw new IllegalArgumentException("purgeInterval must be >= 1: " + purgeInterval);
        }
        this.purgeInterval = purgeInterval;
    }

    void maxPending(int maxPending) {
        if (maxPending < 0) {
            throw new IllegalArgumentException("maxPending must be >= 0 (0 means no limit): " + maxPending);
        }
        this.maxPending = maxPending;
    }

    void reaperEnabled(boolean enabled) {
        this.reaperEnabled = enabled;
        this.reaperGiven = true;
    }

    void expirationExecutor(Executor executor) {
        this.expirationExecutor = Objects.requireNonNull(executor, "executor");
        ownTimerSettings.add("expirationExecutor");
    }

    void clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    void backPressure(Duration lag) {
        this.backPressure = PurgatoryRuntime.checkBackPressure(lag);
        ownTimerSettings.add("backPressure");
    }

    void closePolicy(ClosePolicy closePolicy) {
        this.closePolicy = Objects.requireNonNull(closePolicy, "closePolicy");
    }

    void errorHandler(OperationErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    void observer(WaitObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    void metrics(MetricsRecorderFactory factory) {
        this.metrics = Objects.requireNonNull(factory, "factory");
    }

    /**
     * Checks that the settings go together.
     *
     * @throws IllegalArgumentException naming the settings that conflict
     */
    void checkConflicts() {
        if (runtime == null && timer == null && timerEnabled) {
            PurgatoryRuntime.refuseManualClockForOwnTimer(clock);
        }
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
            if (reaperGiven && !reaperEnabled) {
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
            if (timer instanceof ManualTimer && reaperGiven && reaperEnabled) {
                throw new IllegalArgumentException("a ManualTimer is advanced by its caller, so it takes no reaper:"
                        + " drop reaperEnabled(true)");
            }
        }
    }

    /** True iff the engine runs on a runtime it was given, which it must not close. */
    boolean sharesRuntime() {
        return runtime != null;
    }

    /**
     * The runtime the engine runs on: the one given, else a private one it owns and closes, on
     * the given timer (driven by a reaper unless it is a ManualTimer or the reaper is off, never
     * closed), an idle timer (timer disabled: the reaper only runs the purge policy), or its own
     * timer and executor. {@code refusals} receives the own timer's refused hand-offs.
     */
    PurgatoryRuntime runtimeOrOwn(TaskErrorHandler refusals) {
        if (runtime != null) {
            return runtime;
        }
        if (timer != null) {
            boolean manual = timer instanceof ManualTimer;
            Clock c = clock != null ? clock : manual ? ((ManualTimer) timer).clock() : Clock.system();
            return PurgatoryRuntime.givenTimer(name, timer, c, reaperEnabled && !(manual && !reaperGiven));
        }
        Clock c = clock != null ? clock : Clock.system();
        if (!timerEnabled) {
            return PurgatoryRuntime.idleTimer(name, c, reaperEnabled);
        }
        return PurgatoryRuntime.ownTimer(name, geometry, c, expirationExecutor, refusals, reaperEnabled, backPressure);
    }
}
