package io.purgatory.internal;

import io.purgatory.timer.Clock;
import io.purgatory.timer.DaemonThreads;
import io.purgatory.timer.ManualClock;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TaskErrorHandler;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerDriver;
import io.purgatory.timer.TimerEntry;
import io.purgatory.timer.TimerSettings;
import io.purgatory.timer.internal.EntryAccess;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery under {@code PurgatoryRuntime}: one timer, the thread that drives it and the
 * executor its expirations run on, shared by the engines built on it. Every purgatory runs on
 * one: a runtime the user built and shares, or a private one its purgatory owns. Thread-safe.
 */
public final class RuntimeCore {

    /*
     * Implementation notes.
     *
     * (P1) `members` holds every engine built on this runtime and not yet closed. One is added
     *      only while the runtime is open (register holds off close's mark, CloseOnce), so close()
     *      closes every engine that may still hold an operation; one is removed by its own close.
     * (P2) The driver starts at most once, holding off the mark, when anything is first put on the timer
     *      (schedule), never once the runtime is closed; close() reads it after the mark, so no
     *      driver outlives close(). Nothing the library schedules depends on a submission.
     * (P3) close() closes the engines before it stops the driver and the timer, each by its close
     *      policy, going on past a failure; it follows CloseOnce, so a close from a callback
     *      neither waits for another close nor joins the driver it may be running on. Until a
     *      close did all the work on a thread that may wait (every member's close returned), a
     *      later close does it again, as Closing N5 does: it closes the members the first found
     *      again (each waits as Closing N5 says) and joins the driver, members or none. So a first
     *      close cut short (a member's close threw, or a StackOverflowError from the caller's deep
     *      stack), or one that could not wait, is finished by the next.
     */
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeCore.class);

    /** What a runtime drives and closes: the engine of a purgatory or of keyed waits on it (P1). */
    public interface Member {
        /** Its name, for messages. */
        String name();

        /** The runtime's purge step for this member. */
        void purgeIfNeeded();

        /** Closes it as its own close would (Closing). */
        void close();
    }

    private final String name;
    private final Timer timer;
    private final boolean ownsTimer;
    private final ExecutorService ownedExecutor;
    private final boolean driven;
    private final Clock clock;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final CloseOnce once;
    /** The members the first close found, which a later close closes again (P3); null until it read them. */
    private volatile List<Member> found;
    /** Written holding off the mark (P2); read without it. */
    private volatile TimerDriver driver;

    private RuntimeCore(String name, Timer timer, boolean ownsTimer, ExecutorService ownedExecutor, boolean driven,
                        Clock clock) {
        this.name = name;
        this.timer = timer;
        this.ownsTimer = ownsTimer;
        this.ownedExecutor = ownedExecutor;
        this.driven = driven;
        this.clock = clock;
        this.once = new CloseOnce("runtime '" + name + "'");
    }

    /**
     * A runtime on its own {@link SystemTimer} with {@code settings}, running expirations on
     * {@code executor}, or on {@code threads} threads of its own if that is null; with a driver
     * thread iff {@code driven}. A {@link ManualClock} is refused: the timer's thread would settle
     * due operations some time after the test moved the clock, on that thread.
     *
     * @throws IllegalArgumentException if {@code clock} is a ManualClock
     */
    public static RuntimeCore own(String name, TimerSettings settings, Clock clock, Executor executor, int threads,
                                  TaskErrorHandler errors, boolean driven) {
        if (clock instanceof ManualClock) {
            throw new IllegalArgumentException("clock: a ManualClock moves only when a test moves it, and the own"
                    + " timer's thread would then settle what is due later, on that thread. For deterministic tests"
                    + " give timer(new ManualTimer(clock)) instead and move time with ManualTimer.advanceClock:"
                    + " every due operation is then settled on the test's thread before it returns");
        }
        ExecutorService owned = executor != null ? null
                : Executors.newFixedThreadPool(threads, DaemonThreads.factory(name + "-expiration"));
        SystemTimer own = SystemTimer.builder(name).settings(settings).clock(clock) // (U3)
                .executor(owned != null ? owned : UserCode.asUserCode(executor))
                .errorHandler(UserCode.asUserCode(errors)).build();
        return new RuntimeCore(name, own, true, owned, driven, clock);
    }

    /** A runtime on {@code timer}, which it drives iff {@code driven} and never closes (its owner does). */
    public static RuntimeCore given(String name, Timer timer, Clock clock, boolean driven) {
        return new RuntimeCore(name, timer, false, null, driven, clock);
    }

    /**
     * A runtime for operations that are not timed: its timer holds only what the library schedules
     * for itself (keyed waits' windows), and its driver runs the purge policies.
     */
    public static RuntimeCore idle(String name, Clock clock, boolean driven) {
        Timer idle = SystemTimer.builder(name).clock(clock).executor(Runnable::run).build();
        return new RuntimeCore(name, idle, true, null, driven, clock);
    }

    /** The runtime's name, which names its threads. */
    public String name() {
        return name;
    }

    /** True once a close began. */
    public boolean isClosed() {
        return once.isBegun();
    }

    /** Expirations the executor refused, which the timer ran on the driver instead. O(1). */
    public long expirationsRefused() {
        return ownsTimer && timer instanceof SystemTimer system ? system.failedTaskCount() : 0L;
    }

    /**
     * Closes every engine still open on this runtime, each by its own close policy, then stops the
     * driver, closes the runtime's own timer and shuts its executor down (P3). Idempotent.
     */
    public void close() {
        once.close(this::closeWhole);
    }

    /**
     * A close's whole work (P3): closes the members the first close found (each waits as its first
     * would have, Closing N5), going on past a failure, then stops the driver, closes the own timer
     * and shuts the executor down. True iff every member's close returned, on a thread that may wait.
     */
    private boolean closeWhole() {
        if (found == null) {
            found = List.copyOf(members); // after the mark (P1): a later close closes them again (P3)
        }
        boolean allClosed = true;
        for (Member member : found) {
            try {
                member.close();
            } catch (RuntimeException | Error failure) {
                allClosed = false;
                LOG.error("Runtime '{}': closing purgatory '{}' failed; the others still close", name, member.name(),
                        failure);
            }
        }
        TimerDriver started = driver; // (P2): none starts once the close marked
        if (started != null) {
            started.close(TimeUnit.NANOSECONDS.toMillis(CloseOnce.leftNanos()));
        }
        if (ownsTimer) {
            timer.close();
        }
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
        if (allClosed && !UserCode.isRunning()) { // code the library called did not wait (CloseOnce)
            found = List.of(); // no close does it again: a closed runtime holds no engine
            return true;
        }
        return false;
    }

    /**
     * Registers {@code engine}, being built on this runtime (P1).
     *
     * @throws IllegalStateException if this runtime is closed
     */
    void register(Member engine) {
        if (!once.unlessBegun(() -> members.add(engine))) {
            throw new IllegalStateException("runtime '" + name + "' is closed: cannot build purgatory '"
                    + engine.name() + "' on it");
        }
    }

    /** Deregisters {@code engine}, which is closing: its purge policy no longer runs (P1). */
    void leave(Member engine) {
        members.remove(engine);
    }

    /**
     * Puts {@code entry} on the timer without waiting for back-pressure, starting the driver if it
     * is not running yet (P2): due its delay after {@code nowNanos}, this runtime's clock read by
     * the caller, or after the timer's own reading if that is {@code UserCode.NO_TIME} (none).
     *
     * @throws IllegalStateException if the timer is closed
     */
    public void schedule(TimerEntry entry, long nowNanos) {
        startDriver();
        EntryAccess.get().schedule(timer, entry, nowNanos == UserCode.NO_TIME ? null : clock, nowNanos);
    }

    /** Takes {@code entry} off the timer, if it is on it. */
    public void unschedule(TimerEntry entry) {
        EntryAccess.get().cancel(timer, entry);
    }

    /** Waits, as the timer's back-pressure says, before a user's submission takes its slot. */
    void awaitBackPressure() {
        EntryAccess.get().awaitBackPressure(timer);
    }

    /** Starts the driver, if there is one and it is not started yet (P2). */
    void startDriver() {
        if (driven && driver == null) {
            once.unlessBegun(() -> {
                if (driver == null) {
                    driver = TimerDriver.start("ExpirationReaper-" + name, timer, this::runPurgePolicies);
                }
            });
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

    Clock clock() {
        return clock;
    }

    /** The timer it runs on (tests). */
    public Timer timer() {
        return timer;
    }

    /** The driver, once started; null before, and always on a runtime without one (tests). */
    public TimerDriver driver() {
        return driver;
    }

    /** The members registered now (tests). */
    public List<Member> members() {
        return List.copyOf(members);
    }
}
