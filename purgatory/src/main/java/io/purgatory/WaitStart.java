package io.purgatory;

import java.util.List;

/**
 * What {@link WaitObserver#started} learns of a wait. The keys are the wait's own, so an
 * observer may record them as high-cardinality values; never use them as metric tags.
 *
 * @param purgatory the name of the purgatory (or keyed waits) the wait is submitted to
 * @param keys      the keys it waits on, in the order given
 * @param timeoutMs its timeout, in ms (by the timer's delay rule)
 */
public record WaitStart(String purgatory, List<Object> keys, long timeoutMs) {
}
