package io.purgatory.bench;

/** A delayed operation of either purgatory, seen only as something that can be forced to complete. */
public interface Completable {

    /** Completes the operation unless it is already completed; true iff this call completed it. */
    boolean forceComplete();

    /** True once the operation has completed (or expired). */
    boolean isCompleted();
}
