package io.purgatory.bench;

/** What a workload's timer task does when it fires, whichever timer runs it. */
@FunctionalInterface
public interface TaskBody {

    /** A body that does nothing (a shared instance: no per-task state). */
    TaskBody NOOP = () -> { };

    void fire();
}
