package io.purgatory.internal;

/**
 * What an {@link Engine} is built with, validated by the public builders.
 *
 * @param name         the purgatory's name
 * @param shards       the number of watcher lists, a power of two
 * @param maxPending   the most pending operations; 0 for no limit
 * @param closeOutcome the outcome a close settles pending operations with (OperationState's codes)
 * @param failures     where the failures of operations' callbacks go
 * @param observer     watches each wait, or null
 * @param runtime      the timer, driver and executor the engine runs on
 * @param ownsRuntime  whether the engine closes the runtime when it closes
 * @param timed        whether operations are put on the timer
 */
public record EngineConfig(String name, int shards, int maxPending, int closeOutcome, UserCode.Failures failures,
                           UserCode.Observer observer, RuntimeCore runtime, boolean ownsRuntime, boolean timed) {
}
