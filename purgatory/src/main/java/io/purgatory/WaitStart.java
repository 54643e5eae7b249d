package io.purgatory;

import io.purgatory.timer.Timer;
import java.util.List;

/**
 * What {@link WaitObserver#started} learns of a wait. The keys are the wait's own, so an
 * observer may record them as high-cardinality values; never use them as metric tags.
 *
 * @param purgatory the name of the purgatory (or keyed waits) the wait is submitted to
 * @param keys      the keys it waits on, in the order given
 * @param timeoutMs its timeout, in ms, by the timer's delay rule: 0 for a delay of zero or less
 *                  (due now), at most {@link Timer#MAX_DELAY_MS} (never)
 */
public record WaitStart(String purgatory, List<Object> keys, long timeoutMs) {

    /** Takes {@code timeoutMs} by the timer's delay rule. */
    public WaitStart {
        timeoutMs = Math.max(0L, Math.min(timeoutMs, Timer.MAX_DELAY_MS));
    }
}
