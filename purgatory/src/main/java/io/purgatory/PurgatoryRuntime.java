package io.purgatory;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import io.purgatory.timer.Clock;
import io.purgatory.timer.DaemonThreads;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerDriver;
import io.purgatory.timer.TimerGeometry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * waits drop their retained events, a {@link DelayedFuturePurgatory} stops its thread), each by its
 * own close policy, going on past any failure; then it stops the driver, the timer and the
 * default executor. A build that starts once {@code close()} has begun throws; one that returned
 * before is closed by it.
 *
 * <p>Threads: the driver, a daemon {@code ExpirationReaper-<name>} started by the first submission
 * to any purgatory on the runtime, advances the timer and after each advance runs every open
 * purgatory's purge; expiration callbacks run on the executor (default: two daemon threads
 * {@code <name>-expiration}), and close-policy callbacks on the thread that closes. Built on a
 * {@link ManualTimer}, the runtime starts no thread: the caller advances that timer, and due
 * operations expire on its thread.
 */
public final class PurgatoryRuntime implements AutoCloseable {

    /*
     * Implementation notes.
     *
     * A purgatory without a runtime of its own making gets a private one (EngineSettings), which
     * it closes itself: every purgatory runs on a runtime, so one class owns the timer, the driver
     * and the executor, and the default keeps Kafka's one set per purgatory.
     *
     * (P1) `members` holds every engine built on this runtime and not yet closed. One is added
     *      only while the runtime is open (register and close's mark both hold `lock`), so close()
     *      closes every engine that may still hold an operation; one is removed by its own close,
     *      so an engine closed first is not closed again. An engine's close closes its facade's
     *      own resources too, so the runtime closes what users built on it whole.
     * (P2) The driver starts at most once, under `lock`, and never once the runtime is closed;
     *      close() reads it after the mark, so no driver outlives close().
     * (P3) close() closes the engines before it stops the driver and the timer: their operations
     *      are settled by their close policies, and meanwhile the others still expire. A failure
     *      of one close is logged and the others still close.
     */

    private static final Logger LOG = LoggerFactory.getLogger(PurgatoryRuntime.class);
    static final int DEFAULT_EXPIRATION_THREADS = 2;

    private final String name;
    private final Timer timer;
    private final boolean ownsTimer;
    private final ExecutorService ownedExecutor;
    private final boolean driven;
    private final Clock clock;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private final ReentrantLock closeLock = new ReentrantLock();
    @GuardedBy("lock")
    private boolean closed;
    /** Written under `lock` (P2); read without it. */
    private volatile TimerDriver driver;

    private PurgatoryRuntime(String name, Timer timer, boolean ownsTimer, ExecutorService ownedExecutor,
                             boolean driven, Clock clock) {
        this.name = name;
        this.timer = timer;
        this.ownsTimer = ownsTimer;
        this.ownedExecutor = ownedExecutor;
        this.driven = driven;
        this.clock = clock;
    }

    /** Starts a builder for a runtime named {@code name}, which also names its threads. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * A runtime on its own {@link SystemTimer}, running expirations on {@code executor}, or on a
     * pool of its own if that is null; with a driver thread iff {@code driven}.
     */
    static PurgatoryRuntime ownTimer(String name, TimerGeometry geometry, Clock clock, Executor executor,
                                     TaskErrorHandler errorHandler, boolean driven, Duration backPressure) {
        ExecutorService owned = null;
        if (executor == null) {
            owned = new ThreadPoolExecutor(DEFAULT_EXPIRATION_THREADS, DEFAULT_EXPIRATION_THREADS, 0L,
                    TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), DaemonThreads.factory(name + "-expiration"));
        }
        SystemTimer.Builder builder = SystemTimer.builder(name).geometry(geometry).clock(clock)
                .executor(owned != null ? owned : executor).errorHandler(errorHandler);
        if (backPressure != null) {
            builder.backPressure(backPressure);
        }
        SystemTimer own = builder.build();
        return new PurgatoryRuntime(name, own, true, owned, driven, clock);
    }

    /** A runtime on {@code timer}, which it drives iff {@code driven} and never closes (its owner does). */
    static PurgatoryRuntime givenTimer(String name, Timer timer, Clock clock, boolean driven) {
        return new PurgatoryRuntime(name, timer, false, null, driven, clock);
    }

    /**
     * A runtime whose timer holds nothing (its purgatories add no operation to it): its driver only
     * runs their purge policies, between waits on the idle timer.
     */
    static PurgatoryRuntime idleTimer(String name, Clock clock, boolean driven) {
        Timer idle = SystemTimer.builder(name).clock(clock).executor(Runnable::run).build();
        return new PurgatoryRuntime(name, idle, true, null, driven, clock);
    }

    /** The name this runtime was built with; it also names its threads. */
    public String name() {
        return name;
    }

    /** True once {@link #close()} has begun. */
    public boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    /**
     * Expirations the executor refused (its {@code execute} threw), which the timer then ran on the
     * driver thread, each also reported to the runtime's {@link Builder#errorHandler}. Counted here,
     * not by the purgatories, whose own count of them stays 0 on a shared runtime. O(1).
     */
    public long expirationsRefused() {
        return timer instanceof SystemTimer system ? system.failedTaskCount() : 0L;
    }

    /**
     * Closes every purgatory still open on this runtime, each settling its pending operations by its
     * own close policy on this thread, then stops the driver thread, closes the runtime's own timer
     * and shuts its default executor down (an executor given to the builder is left running).
     * Idempotent; a concurrent call returns once the first has finished. Afterwards, building a
     * purgatory on this runtime throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        closeLock.lock();
        try {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                closed = true; // (P1): nothing registers from here on
            }
            for (Member member : members) { // (P3)
                try {
                    member.close();
                } catch (RuntimeException | Error failure) {
                    LOG.error("Runtime '{}': closing purgatory '{}' failed; the others still close", name,
                            member.name(), failure);
                }
            }
            TimerDriver started = driver; // (P2): none starts from here on
            if (started != null) {
                started.close(); // stops its thread at once; the timer is closed next, if it is the runtime's
            }
            if (ownsTimer) {
                timer.close();
            }
            if (ownedExecutor != null) {
                ownedExecutor.shutdown();
            }
        } finally {
            closeLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "PurgatoryRuntime[" + name + ", purgatories=" + members.size() + "]";
    }

    // ---- for the engines on it ----

    /** What the runtime needs of an engine built on it. */
    interface Member {
        /** The purgatory's name. */
        String name();

        /** Runs its purge policy: the driver's step after each advance. */
        void purgeIfNeeded();

        /** Closes it whole; idempotent. */
        void close();
    }

    /**
     * Registers {@code member}, being built on this runtime (P1).
     *
     * @throws IllegalStateException if this runtime is closed
     */
    void register(Member member) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("runtime '" + name + "' is closed: cannot build purgatory '"
                        + member.name() + "' on it");
            }
            members.add(member);
        }
    }

    /** Deregisters {@code member}, which is closing: its purge policy no longer runs (P1). */
    void leave(Member member) {
        members.remove(member);
    }

    /** Starts the driver thread, if this runtime has one and it is not started yet (P2). */
    void startDriver() {
        if (driven && driver == null) {
            synchronized (lock) {
                if (driver == null && !closed) {
                    driver = TimerDriver.start("ExpirationReaper-" + name, timer, this::runPurgePolicies);
                }
            }
        }
    }

    /** The driver's step after each advance: every open engine's purge policy, one failure not stopping the rest. */
    void runPurgePolicies() {
        for (Member member : members) {
            try {
                member.purgeIfNeeded();
            } catch (RuntimeException | Error error) {
                LOG.error("Runtime '{}': the purge policy of purgatory '{}' failed; the driver carries on", name,
                        member.name(), error);
            }
        }
    }

    Timer timer() {
        return timer;
    }

    Clock clock() {
        return clock;
    }

    /** True iff the calling thread is the runtime's driver. */
    boolean isDriverThread() {
        TimerDriver started = driver;
        return started != null && started.isCurrentThread();
    }

    /** The driver, once started; null before, and always on a runtime without one. */
    TimerDriver driver() {
        return driver;
    }

    /** The one check of a purgatory's, keyed waits' or runtime's name: not null, not blank. */
    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        return name;
    }

    /**
     * {@code lag} if it is a valid back-pressure bound of an own timer.
     *
     * @throws NullPointerException if {@code lag} is null
     * @throws IllegalArgumentException if {@code lag} is not positive
     */
    static Duration checkBackPressure(Duration lag) {
        Objects.requireNonNull(lag, "lag");
        if (lag.isNegative() || lag.isZero()) {
            throw new IllegalArgumentException("backPressure lag must be > 0: " + lag);
        }
        return lag;
    }

    /**
     * Refuses a {@link ManualClock} as the clock of an own timer: the timer's thread would settle
     * due operations some time after the test moved the clock, on that thread, so a test built
     * that way is not deterministic. The message says what to use instead.
     *
     * @throws IllegalArgumentException if {@code clock} is a ManualClock
     */
    static void refuseManualClockForOwnTimer(Clock clock) {
        if (clock instanceof ManualClock) {
            throw new IllegalArgumentException("clock: a ManualClock moves only when a test moves it, and the own"
                    + " timer's thread would then settle what is due later, on that thread. For deterministic tests"
                    + " give timer(new ManualTimer(clock)) instead and move time with ManualTimer.advanceClock:"
                    + " every due operation is then settled on the test's thread before it returns");
        }
    }

    /** The engines registered now (tests). */
    List<Member> members() {
        return new ArrayList<>(members);
    }

    /**
     * Builds a {@link PurgatoryRuntime}. Defaults: its own timer ({@link TimerGeometry#DEFAULT}, the
     * system clock), two expiration threads, refused hand-offs logged. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private TimerGeometry geometry = TimerGeometry.DEFAULT;
        private final Set<String> ownTimerSettings = new LinkedHashSet<>();
        private Executor expirationExecutor;
        private Clock clock;
        private TaskErrorHandler errorHandler;
        private ManualTimer manualTimer;
        private Duration backPressure;

        private Builder(String name) {
            this.name = checkName(name);
        }

        /** Tick and wheel size of the runtime's timer (default {@link TimerGeometry#DEFAULT}). */
        public Builder geometry(TimerGeometry geometry) {
            this.geometry = Objects.requireNonNull(geometry, "geometry");
            ownTimerSettings.add("geometry");
            return this;
        }

        /** Tick of the runtime's timer, in ms (default 1; bounds as {@link TimerGeometry}'s). */
        public Builder tickMs(long tickMs) {
            this.geometry = geometry.withTickMs(tickMs);
            ownTimerSettings.add("tickMs");
            return this;
        }

        /**
         * Tick of the runtime's timer (default 1 ms), in ms by the duration rule of {@link Timer}.
         *
         * @throws NullPointerException if {@code tick} is null
         */
        public Builder tick(Duration tick) {
            return tickMs(Timer.toMs(Objects.requireNonNull(tick, "tick")));
        }

        /** Buckets per wheel of the runtime's timer (default 1024; bounds as {@link TimerGeometry}'s). */
        public Builder wheelSize(int wheelSize) {
            this.geometry = geometry.withWheelSize(wheelSize);
            ownTimerSettings.add("wheelSize");
            return this;
        }

        /**
         * Where expirations of every purgatory on the runtime run (default: two daemon threads
         * {@code <name>-expiration}, shut down by {@link PurgatoryRuntime#close()}). An executor
         * given here is not shut down by the runtime.
         */
        public Builder expirationExecutor(Executor executor) {
            this.expirationExecutor = Objects.requireNonNull(executor, "executor");
            ownTimerSettings.add("expirationExecutor");
            return this;
        }

        /**
         * Back-pressure on the runtime's timer ({@link SystemTimer.Builder#backPressure}): while its
         * expiries run more than {@code lag} behind their deadlines, a submission to any purgatory on
         * the runtime waits (at most {@code lag} per call) for them to catch up. The runtime's own
         * threads never wait. Default: none.
         *
         * @throws NullPointerException if {@code lag} is null
         * @throws IllegalArgumentException if {@code lag} is not positive
         */
        public Builder backPressure(Duration lag) {
            this.backPressure = checkBackPressure(lag);
            ownTimerSettings.add("backPressure");
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
         * Builds the runtime; no thread starts before the first submission to a purgatory on it.
         *
         * @throws IllegalArgumentException if {@link #timer} is combined with a setting of the own timer
         */
        public PurgatoryRuntime build() {
            if (manualTimer != null) {
                if (!ownTimerSettings.isEmpty()) {
                    throw new IllegalArgumentException("timer(...) cannot be combined with " + ownTimerSettings
                            + ": they configure the runtime's own timer");
                }
                return givenTimer(name, manualTimer, manualTimer.clock(), false);
            }
            refuseManualClockForOwnTimer(clock);
            return ownTimer(name, geometry, clock != null ? clock : Clock.system(), expirationExecutor,
                    errorHandler != null ? errorHandler : TaskErrorHandler.logging(), true, backPressure);
        }
    }
}
