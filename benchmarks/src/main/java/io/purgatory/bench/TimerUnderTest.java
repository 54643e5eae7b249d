package io.purgatory.bench;

/**
 * One timer implementation behind the shape the workloads use: create the user's task object,
 * schedule it (getting the handle that cancels it), cancel. Every implementation allocates one
 * user task object per {@link #newTask}; what {@link #schedule} allocates on top is the timer's own.
 * Each timer is driven as its authors intend: ours and Kafka's by their SystemTimerReaper thread
 * (expired tasks run on the timer's one executor thread), Netty's by its worker thread (1 ms
 * tick, 512 ticks per wheel), the JDK's by its one pool thread (remove-on-cancel on).
 */
public interface TimerUnderTest extends AutoCloseable {

    Impl impl();

    /** A task that runs {@code body} {@code delayMs} after it is scheduled. */
    Object newTask(long delayMs, TaskBody body);

    /** Schedules a task made by {@link #newTask}; returns the handle that {@link #cancel} takes. */
    Object schedule(Object task);

    /** Cancels a scheduled task, given its handle; a no-op if it already ran. */
    void cancel(Object handle);

    /** Tasks scheduled and neither run nor cancelled, as the implementation counts them. */
    long size();

    @Override
    void close();

    /** {@code schedule(newTask(delayMs, body))}. */
    default Object schedule(long delayMs, TaskBody body) {
        return schedule(newTask(delayMs, body));
    }

    static TimerUnderTest create(Impl impl, String name) {
        return switch (impl) {
            case OURS -> new OursTimer(name);
            case KAFKA -> new KafkaTimer(name);
            case NETTY -> new NettyTimer(name);
            case JDK -> new JdkTimer(name);
            case FLOOR, PROTO, TIMED_FLOOR, ALLOC_FLOOR -> throw new IllegalArgumentException("no timer for " + impl);
        };
    }
}
