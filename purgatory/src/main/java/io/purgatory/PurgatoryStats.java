package io.purgatory;

/**
 * A snapshot of a purgatory's counters, read in O(1). Each field is exact when the purgatory is
 * quiescent; under load, fields are read one after another and may be mutually inconsistent.
 *
 * @param name            the purgatory's name
 * @param pending         operations watched and not yet settled ({@link DelayedOperationPurgatory#numDelayed()})
 * @param watched         watch entries: a pending operation counts once per key
 *                        ({@link DelayedOperationPurgatory#watched()})
 * @param keys            keys with at least one pending operation
 * @param completed       operations completed after being watched
 * @param completedAtOnce operations completed by the first {@code tryComplete}, never watched
 * @param expired         operations expired
 * @param cancelled       operations cancelled
 * @param callbackErrors  callbacks that threw
 * @param rejected        submissions refused because the purgatory was full
 * @param purges          purges run by the reaper
 * @param expirationsRefused expirations the expiration executor refused, or failed to take (its
 *                        {@code execute} threw); the timer ran them on its own thread instead,
 *                        late if it was busy. Always 0 with a timer passed in, and on a shared
 *                        {@link PurgatoryRuntime}, which counts them itself
 *                        ({@link PurgatoryRuntime#expirationsRefused()})
 */
public record PurgatoryStats(String name, int pending, int watched, int keys, long completed,
                             long completedAtOnce, long expired, long cancelled, long callbackErrors,
                             long rejected, long purges, long expirationsRefused) {
}
