package io.purgatory;

import java.util.List;

/**
 * One pending operation, as {@link Purgatory#listPending} read it: a snapshot, for an operator.
 *
 * @param kind       the operation's class (simple name): {@code KeyedWait} for a keyed wait
 * @param keys       its watch keys, as the {@link KeyRenderer} showed them, in the order given
 * @param ageMs      how long it has been watched
 * @param timeLeftMs how long until its timeout, 0 if due now; -1 if it has none (no timer, or a delay
 *                   of {@code Long.MAX_VALUE})
 * @param position   the position it waits for on its key, or null
 * @param tried      whether a check has tried it (not only its submission)
 * @param tenant     its tenant as the renderer showed it, or null without tenants
 */
public record PendingOperation(String kind, List<String> keys, long ageMs, long timeLeftMs, Long position,
                               boolean tried, String tenant) {
}
