package io.purgatory.bench;

/**
 * One row of the table: a measured quantity of a workload.
 *
 * @param workload the workload's title
 * @param name     what is measured, with its unit
 * @param bar      the target for it, if any
 */
record Metric(String workload, String name, Bar bar) {

    Metric(String workload, String name) {
        this(workload, name, Bar.NONE);
    }
}
