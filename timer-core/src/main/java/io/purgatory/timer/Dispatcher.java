package io.purgatory.timer;

/** Runs or hands off the tasks a timer's driver has expired (see {@link DueTasks}). */
@FunctionalInterface
interface Dispatcher {

    void dispatch(TimerEntry task);

    /** Runs or hands off {@code tasks[0..count)}, in order; the array is the callee's to keep. */
    default void dispatchAll(TimerEntry[] tasks, int count) {
        for (int i = 0; i < count; i++) {
            dispatch(tasks[i]);
        }
    }
}
