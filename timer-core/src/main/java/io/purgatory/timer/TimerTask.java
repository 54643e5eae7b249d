package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * A task that a {@link Timer} runs once its delay has passed.
 *
 * <p>Adding a task schedules it; adding it again while it is scheduled reschedules it, and adding
 * it after it ran schedules it anew. {@link #cancel()} is O(1), idempotent and thread-safe; a
 * cancelled task never runs. A task belongs to the first timer it is added to and cannot be
 * added to another. The task is its own list node: scheduling allocates nothing more.
 *
 * <p>Memory consistency effects: actions in a thread prior to adding a task to a timer
 * happen-before that task's {@link #run()} for that schedule.
 */
public abstract class TimerTask extends TimerEntry implements Runnable {

    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(TimerTask.class, "owner", TimerEngine.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The timer it was first added to; set once. */
    private volatile TimerEngine owner;

    /**
     * Creates a task to run {@code delayMs} milliseconds after it is added to a timer; any value
     * is allowed, read by the delay rule of {@link Timer}.
     */
    protected TimerTask(long delayMs) {
        super(delayMs);
    }

    /**
     * Creates a task to run {@code delay} after it is added to a timer, read by the duration rule
     * of {@link Timer} (rounded up to whole ms, saturating: any duration is allowed).
     *
     * @throws NullPointerException if {@code delay} is null
     */
    protected TimerTask(Duration delay) {
        this(TimerConfig.toMs(delay, "delay"));
    }

    /** What the task does once its delay has passed. */
    @Override
    public abstract void run();

    /**
     * Cancels this task's current schedule: it will not run for it. O(1); safe from any thread.
     * Subclasses that override this must call {@code super.cancel()}.
     *
     * @return true iff this call cancelled a scheduled task
     */
    public boolean cancel() {
        TimerEngine o = owner;
        return o != null && cancelSchedule(o);
    }

    /** Returns true iff this task's last schedule was cancelled (by {@link #cancel()} or a close). */
    public boolean isCancelled() {
        return (state() & LIFECYCLE) == CANCELLED;
    }

    /** Returns true iff this task is scheduled: added, and since then neither run nor cancelled. */
    public final boolean isScheduled() {
        return (state() & LIFECYCLE) == SCHEDULED;
    }

    /** Binds this task to {@code engine} on first use; false if it belongs to another engine. */
    boolean bindTo(TimerEngine engine) {
        if (owner == null && OWNER.compareAndSet(this, null, engine)) {
            return true;
        }
        return owner == engine;
    }

    TimerEngine owner() {
        return owner;
    }

    @Override
    public String toString() {
        return getClass().getName() + "[delayMs=" + delayMs() + "]";
    }
}
