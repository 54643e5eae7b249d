package io.purgatory.bench;

/**
 * One row of the table: a measured quantity of a workload.
 *
 * @param workload the workload's title
 * @param name     what is measured, with its unit
 * @param bar      the target for it, if any
 * @param versus   the implementation ours is compared with in the ratio column and a relative bar
 */
record Metric(String workload, String name, Bar bar, Impl versus) {

    /** A row compared with Kafka. */
    Metric(String workload, String name, Bar bar) {
        this(workload, name, bar, Impl.KAFKA);
    }

    Metric(String workload, String name) {
        this(workload, name, Bar.NONE);
    }
}
