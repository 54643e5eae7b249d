package io.purgatory.concurrency;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.Outcome;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operation the purgatory races use: it completes once {@link #completable} is set, and counts
 * its callbacks. Helpers turn what happened into the small integers jcstress tallies:
 * <ul>
 *   <li>{@link #outcomeCode}: 0 pending, 1 completed, 2 expired, 3 cancelled;
 *   <li>{@link #callbacks}: onComplete runs * 100 + onExpiration runs * 10 + onCancel runs, so
 *       {@code 100} is "completed", {@code 110} "expired", {@code 1} "cancelled";
 *   <li>{@link #leftovers}: pending + watch entries + keys + timer entries, 0 when nothing lingers
 *       (and the purgatory's own invariants hold, or the arbiter throws).
 * </ul>
 * How an arbiter reads them is {@link RaceFixture}'s report.
 */
final class RaceOperation extends DelayedOperation {

    static final long DELAY_MS = 5;

    /** The caller's state change: tryComplete succeeds once it is visible. */
    volatile boolean completable;
    private final AtomicInteger onComplete = new AtomicInteger();
    private final AtomicInteger onExpiration = new AtomicInteger();
    private final AtomicInteger onCancel = new AtomicInteger();

    RaceOperation() {
        super(DELAY_MS);
    }

    @Override
    protected boolean tryComplete() {
        return completable && forceComplete();
    }

    @Override
    protected void onComplete() {
        onComplete.incrementAndGet();
    }

    @Override
    protected void onExpiration() {
        onExpiration.incrementAndGet();
    }

    @Override
    protected void onCancel() {
        onCancel.incrementAndGet();
    }

    int outcomeCode() {
        Outcome outcome = outcome();
        return outcome == null ? 0 : outcome.ordinal() + 1;
    }

    int callbacks() {
        return onComplete.get() * 100 + onExpiration.get() * 10 + onCancel.get();
    }

    /** A purgatory on {@code timer}, without a reaper, with {@code shards} shards. */
    static DelayedOperationPurgatory<RaceOperation> purgatory(ManualTimer timer, int shards) {
        return DelayedOperationPurgatory.builder("race").timer(timer).reaperEnabled(false)
                .shards(shards).build();
    }

    /** Whatever is still held: 0 iff the operation left every list, every gauge and the timer. */
    static int leftovers(DelayedOperationPurgatory<?> purgatory, Timer timer) {
        Invariants.check(purgatory);
        return purgatory.numDelayed() + purgatory.watched() + purgatory.watchedKeys() + timer.size();
    }
}
