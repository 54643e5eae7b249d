package io.purgatory.bench;

import java.util.Locale;

/** The implementations the harness compares; {@link #OURS} is this project. */
public enum Impl {
    OURS("ours"),
    KAFKA("Kafka 4.4.0"),
    NETTY("Netty HashedWheelTimer"),
    JDK("JDK ScheduledThreadPoolExecutor"),
    /** Workload 1's yardstick, not a column of the table: {@link FloorPurgatory}. */
    FLOOR("floor (no timer, no gauges, lazy removal)"),
    /** Workloads 1 and 5's prototype, not a column of the table: {@link ProtoPurgatory}. */
    PROTO("proto (a timer and eager removal, nothing else)"),
    /** Workload 5's second yardstick, no column: the floor plus a timer entry per request ({@link TimedFloor}). */
    TIMED_FLOOR("timed floor (the floor and a timer entry per request)"),
    /** The capacity ladder's yardstick, no column: ours' allocation per insert ({@link AllocationFloor}). */
    ALLOC_FLOOR("allocation floor (ours' allocation per insert, kept until its deadline, no purgatory)");

    private final String label;

    Impl(String label) {
        this.label = label;
    }

    /** A human-readable name for tables. */
    public String label() {
        return label;
    }

    /** The lower-case id used on the command line and in JMH parameters ({@code ours}, {@code kafka}...). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses an {@link #id()}. */
    public static Impl of(String id) {
        return valueOf(id.toUpperCase(Locale.ROOT));
    }
}
