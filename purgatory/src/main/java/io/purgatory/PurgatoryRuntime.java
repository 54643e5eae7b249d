package io.purgatory;

import io.purgatory.internal.RuntimeCore;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.TimerSettings;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * One timer, one driver thread and one expiration executor, shared by the purgatories built on
 * it: {@code DelayedOperationPurgatory.builder("a").runtime(runtime).build()}. Thread-safe.
 * Without a runtime, each purgatory has its own timer, reaper thread and two expiration threads.
 *
 * <pre>{@code
 * PurgatoryRuntime runtime = PurgatoryRuntime.builder("orders").build();
 * DelayedOperationPurgatory<DelayedPayment> payments = DelayedOperationPurgatory.builder("payments")
 *         .runtime(runtime)
 *         .build();
 * KeyedWaits<String, String> shipments = KeyedWaits.builder("shipments").runtime(runtime).build();
 * // ... at shutdown: closes both purgatories, each by its close policy, then the timer and its threads
 * runtime.close();
 * }</pre>
 *
 * <p>Each purgatory keeps its own name, counters, metrics and close: closing one settles only its
 * own pending operations, by its close policy, and the others keep running. {@link #close()}
 * closes every purgatory still open on the runtime whole, as its own {@code close()} would (keyed
 * waits drop their retained events, a {@link DelayedFuturePurgatory} stops its thread), going on
 * past any failure; then it stops the driver, the timer and the default executor. A build that
 * starts once {@code close()} has begun throws; one that returned before is closed by it.
 *
 * <p>Threads: the driver, a daemon {@code ExpirationReaper-<name>} started when anything is first
 * put on the timer (a submission, or the window of an early event), advances the timer and after
 * each advance runs every open purgatory's purge; expiration callbacks run on the executor
 * (default: two daemon threads {@code <name>-expiration}), and close-policy callbacks on the
 * thread that closes. Built on a {@link ManualTimer}, the runtime starts no thread: the caller
 * advances that timer, and due operations expire on its thread.
 */
public final class PurgatoryRuntime implements AutoCloseable {

    static final int DEFAULT_EXPIRATION_THREADS = 2;

    private final RuntimeCore core;

    private PurgatoryRuntime(RuntimeCore core) {
        this.core = core;
    }

    /** Starts a builder for a runtime named {@code name}, which also names its threads. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The name this runtime was built with; it also names its threads. */
    public String name() {
        return core.name();
    }

    /** True once {@link #close()} has begun. */
    public boolean isClosed() {
        return core.isClosed();
    }

    /**
     * Expirations the executor refused (its {@code execute} threw), which the timer then ran on the
     * driver thread, each also reported to the runtime's {@link Builder#errorHandler}. Counted here,
     * not by the purgatories, whose own count of them stays 0 on a shared runtime. O(1).
     */
    public long expirationsRefused() {
        return core.expirationsRefused();
    }

    /**
     * Closes every purgatory still open on this runtime, each settling its pending operations by its
     * own close policy on this thread, then stops the driver thread, closes the runtime's own timer
     * and shuts its default executor down (an executor given to the builder is left running).
     * Idempotent. A concurrent call returns once the first has finished (at most 10 s), unless it
     * is made from a callback or another call of the library's: then it returns at once, since
     * the first may be waiting for that very callback. Afterwards, building a purgatory on this
     * runtime throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        core.close();
    }

    @Override
    public String toString() {
        return "PurgatoryRuntime[" + core.name() + ", purgatories=" + core.members().size() + "]";
    }

    /** The one check of a purgatory's, keyed waits' or runtime's name: not null, not blank. */
    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        return name;
    }

    /** The machinery under this facade. */
    RuntimeCore core() {
        return core;
    }

    /**
     * Builds a {@link PurgatoryRuntime}. Defaults: its own timer ({@link TimerSettings#DEFAULT}, the
     * system clock), two expiration threads, refused hand-offs logged. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private TimerSettings timerSettings = TimerSettings.DEFAULT;
        private final Set<String> ownTimerSettings = new LinkedHashSet<>();
        private Executor expirationExecutor;
        private int expirationThreads = DEFAULT_EXPIRATION_THREADS;
        private Clock clock;
        private TaskErrorHandler errorHandler = TaskErrorHandler.logging();
        private ManualTimer manualTimer;

        private Builder(String name) {
            this.name = checkName(name);
        }

        /**
         * The tick, wheel size and back-pressure of the runtime's timer (default
         * {@link TimerSettings#DEFAULT}: no back-pressure). With back-pressure, while expiries run
         * more than its bound behind their deadlines, a submission to any purgatory on the runtime
         * waits (at most the bound per call) before it is taken; the runtime's own threads never
         * wait, nor does anything the library puts on the timer for itself.
         */
        public Builder timerSettings(TimerSettings timerSettings) {
            this.timerSettings = Objects.requireNonNull(timerSettings, "timerSettings");
            ownTimerSettings.add("timerSettings");
            return this;
        }

        /**
         * Where expirations of every purgatory on the runtime run (default: {@link #expirationThreads}
         * daemon threads {@code <name>-expiration}, shut down by {@link PurgatoryRuntime#close()}).
         * An executor given here is not shut down by the runtime.
         */
        public Builder expirationExecutor(Executor executor) {
            this.expirationExecutor = Objects.requireNonNull(executor, "executor");
            ownTimerSettings.add("expirationExecutor");
            return this;
        }

        /**
         * The number of the runtime's own expiration threads (default 2).
         *
         * @throws IllegalArgumentException if {@code threads} is below 1
         */
        public Builder expirationThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("expirationThreads must be >= 1: " + threads);
            }
            this.expirationThreads = threads;
            ownTimerSettings.add("expirationThreads");
            return this;
        }

        /** The clock of the runtime's timer and of its purgatories' duration metrics (default: the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            ownTimerSettings.add("clock");
            return this;
        }

        /**
         * Receives the expirations the executor refused (its {@code execute} threw; the timer ran
         * them on the driver thread instead), after {@link PurgatoryRuntime#expirationsRefused()}
         * counted them (default {@link TaskErrorHandler#logging()}).
         */
        public Builder errorHandler(TaskErrorHandler errorHandler) {
            this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
            ownTimerSettings.add("errorHandler");
            return this;
        }

        /**
         * Runs the runtime on {@code timer}, for deterministic tests: no thread is started, the
         * caller advances the timer, and due operations expire on its thread. The runtime's close
         * leaves the timer open. Not combinable with the settings of the runtime's own timer.
         */
        public Builder timer(ManualTimer timer) {
            this.manualTimer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * Builds the runtime; no thread starts before anything is put on its timer.
         *
         * @throws IllegalArgumentException if {@link #timer} is combined with a setting of the own
         *     timer, or {@link #expirationThreads} with {@link #expirationExecutor} (the message
         *     names them), or the clock is a {@link io.purgatory.timer.ManualClock} (give a
         *     ManualTimer instead)
         */
        public PurgatoryRuntime build() {
            if (manualTimer != null) {
                if (!ownTimerSettings.isEmpty()) {
                    throw new IllegalArgumentException("timer(...) cannot be combined with " + ownTimerSettings
                            + ": they configure the runtime's own timer");
                }
                return new PurgatoryRuntime(RuntimeCore.given(name, manualTimer, manualTimer.clock(), false));
            }
            if (expirationExecutor != null && ownTimerSettings.contains("expirationThreads")) {
                throw new IllegalArgumentException("expirationExecutor cannot be combined with [expirationThreads]:"
                        + " the threads are the runtime's own executor's");
            }
            return new PurgatoryRuntime(RuntimeCore.own(name, timerSettings, clock != null ? clock : Clock.system(),
                    expirationExecutor, expirationThreads, errorHandler, true));
        }
    }
}
