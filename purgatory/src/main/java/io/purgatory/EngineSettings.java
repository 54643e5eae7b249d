package io.purgatory;

import io.purgatory.internal.EngineConfig;
import io.purgatory.internal.Operation;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.RuntimeCore;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import io.purgatory.timer.internal.EntryAccess;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;

/**
 * What the public builders ({@link PurgatoryBuilder}, {@link KeyedWaitsBuilder}) collect for an
 * engine: each setting validated as it is given, naming the argument and the value, and the
 * settings that cannot apply together refused once at build, naming them. Not thread-safe, as the
 * builders.
 */
final class EngineSettings {

    /** PurgatoryBuilder's DEFAULT_SHARDS and MAX_SHARDS, here so that the settings need no builder. */
    static final int DEFAULT_SHARDS = 512;
    static final int MAX_SHARDS = 1 << 16;

    final String name;
    private int shards = DEFAULT_SHARDS;
    private boolean reaperEnabled = true;
    /** Whether reaperEnabled was given: a ManualTimer turns the reaper off unless it was asked for. */
    private boolean reaperGiven;
    private boolean timerEnabled = true;
    private int maxPending;
    ClosePolicy closePolicy = ClosePolicy.EXPIRE;
    private OperationErrorHandler errorHandler = OperationErrorHandler.processDefault();
    MetricsRecorderFactory metrics;
    private WaitObserver observer;
    private PurgatoryRuntime runtime;
    private Timer timer;
    private TimerSettings timerSettings = TimerSettings.DEFAULT;
    private Executor expirationExecutor;
    private Clock clock;
    private BiFunction<Operation, Object, Object> tenantOf;
    private int maxPendingPerTenant;
    /** The settings of the own timer given, by name, for the messages of conflicts. */
    private final Set<String> ownTimerSettings = new LinkedHashSet<>();

    EngineSettings(String name) {
        this.name = PurgatoryRuntime.checkName(name);
    }


    void timer(Timer timer) {
        if (!EntryAccess.get().supports(Objects.requireNonNull(timer, "timer"))) {
            throw new IllegalArgumentException("timer: a SystemTimer, a ManualTimer or a SystemTimerReaper of one, not "
                    + timer);
        }
        this.timer = timer;
    }

    void runtime(PurgatoryRuntime runtime) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    void timerSettings(TimerSettings settings) {
        this.timerSettings = Objects.requireNonNull(settings, "timerSettings");
        ownTimerSettings.add("timerSettings");
    }

    void shards(int shards) {
        if (shards < 1 || shards > MAX_SHARDS || Integer.bitCount(shards) != 1) {
            throw new IllegalArgumentException("shards must be a power of two from 1 to " + MAX_SHARDS
                    + ": " + shards);
        }
        this.shards = shards;
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

    void timerEnabled(boolean enabled) {
        this.timerEnabled = enabled;
    }

    void expirationExecutor(Executor executor) {
        this.expirationExecutor = Objects.requireNonNull(executor, "executor");
        ownTimerSettings.add("expirationExecutor");
    }

    void clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Bounds each tenant's pending operations at {@code maxPendingPerTenant}, an operation's tenant
     * being what {@code tenantOf} gives it and its first key. The builders null-check the user's
     * function before wrapping it in {@code tenantOf}.
     */
    void tenants(BiFunction<Operation, Object, Object> tenantOf, int maxPendingPerTenant) {
        if (maxPendingPerTenant < 1) {
            throw new IllegalArgumentException("maxPendingPerTenant must be >= 1: " + maxPendingPerTenant);
        }
        this.tenantOf = tenantOf;
        this.maxPendingPerTenant = maxPendingPerTenant;
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
     * The engine's configuration, on the runtime given or a private one it owns.
     *
     * @throws IllegalArgumentException naming the settings that cannot apply together
     */
    EngineConfig config() {
        checkConflicts();
        int closeOutcome = switch (closePolicy) {
            case EXPIRE -> OperationState.EXPIRED;
            case COMPLETE -> OperationState.COMPLETED;
            case CANCEL -> OperationState.CANCELLED;
        };
        return new EngineConfig(name, shards, maxPending, closeOutcome, ErrorHandlers.failures(errorHandler),
                Bridges.observer(observer), runtime != null ? runtime.core() : ownRuntime(), runtime == null,
                runtime != null || timerEnabled, tenantOf, maxPendingPerTenant, Bridges.REFUSALS);
    }

    private void checkConflicts() {
        boolean given = runtime != null || timer != null; // a timer that is not the purgatory's own
        if (runtime == null && timer instanceof ManualTimer && reaperGiven && reaperEnabled) {
            throw new IllegalArgumentException("a ManualTimer is advanced by its caller, so it takes no reaper:"
                    + " drop reaperEnabled(true)");
        }
        if (!given && timerEnabled) {
            return; // its own timer: every setting applies
        }
        Set<String> conflicts = new LinkedHashSet<>(ownTimerSettings);
        if (runtime != null && timer != null) {
            conflicts.add("timer(...)");
        }
        if (runtime != null && clock != null) {
            conflicts.add("clock");
        }
        if (given && !timerEnabled) {
            conflicts.add("timerEnabled(false)");
        }
        if (runtime != null && reaperGiven && !reaperEnabled) {
            conflicts.add("reaperEnabled(false)");
        }
        if (!conflicts.isEmpty()) {
            String with = runtime != null ? "runtime(...)" : timer != null ? "timer(...)" : "timerEnabled(false)";
            throw new IllegalArgumentException(with + " cannot be combined with " + conflicts + ": they configure the"
                    + " purgatory's own timer" + (runtime != null ? "; configure the runtime's on"
                    + " PurgatoryRuntime.builder" : ""));
        }
    }

    /**
     * A private runtime the engine owns and closes: on the given timer (driven by a reaper unless
     * it is a ManualTimer or the reaper is off, never closed), an idle timer (timer disabled:
     * its driver only runs the purge policy), or its own timer and executor.
     */
    private RuntimeCore ownRuntime() {
        if (timer != null) {
            Clock c = clock != null ? clock : timer instanceof ManualTimer manual ? manual.clock() : Clock.system();
            return RuntimeCore.given(name, timer, c, reaperEnabled && (reaperGiven || !(timer instanceof ManualTimer)));
        }
        Clock c = clock != null ? clock : Clock.system();
        if (!timerEnabled) {
            return RuntimeCore.idle(name, c, reaperEnabled);
        }
        return RuntimeCore.own(name, timerSettings, c, expirationExecutor, PurgatoryRuntime.DEFAULT_EXPIRATION_THREADS,
                TaskErrorHandler.logging(), reaperEnabled);
    }

}
