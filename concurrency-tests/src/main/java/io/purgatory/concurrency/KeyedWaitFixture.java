package io.purgatory.concurrency;

import io.purgatory.KeyedWaits;
import io.purgatory.KeyedWaitsBuilder;
import io.purgatory.PurgatoryStats;
import io.purgatory.timer.ManualTimer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.infra.results.IIIIII_Result;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * What the keyed-wait races share: a {@link ManualTimer}, {@link KeyedWaits} on it, one wait
 * (submitted up front or by an actor, through {@link #track}, which counts its future's answers)
 * and the arbiter's report. The report reads the leftovers as the race left them, then advances
 * the timer past the wait's timeout and reads the rest, so a timer entry or a second settle left
 * behind would show as a second answer or an extra count. The small integers jcstress tallies:
 * <ul>
 *   <li>answer: the value (1 and up), -2 a {@link TimeoutException}, -3 a
 *       {@link CancellationException}, -9 another error, 0 not answered;
 *   <li>answers: how many times the future's {@code whenComplete} ran (1: answered exactly once);
 *   <li>counters: completedAtOnce * 1000 + completed * 100 + expired * 10 + cancelled;
 *   <li>leftovers: pending + watch entries + keys + timer entries other than retained events, 0
 *       when nothing lingers (and the purgatory's invariants hold, or the arbiter throws).
 * </ul>
 */
abstract class KeyedWaitFixture {

    static final long TIMEOUT_MS = 5;

    final ManualTimer timer = new ManualTimer();
    final KeyedWaits<String, Integer> waits;
    /** The wait's future: written before the race or by an actor, read by the arbiter. */
    CompletableFuture<Integer> future;
    private final AtomicInteger answers = new AtomicInteger();

    /** Keyed waits on {@code timer}, built from {@code builder} (its timer is set here). */
    KeyedWaitFixture(KeyedWaitsBuilder builder) {
        this.waits = builder.timer(timer).build();
    }

    /** Keyed waits named "race" on {@code shards} shards. */
    static KeyedWaitsBuilder builder(int shards) {
        return KeyedWaits.builder("race").shards(shards);
    }

    /** Keeps {@code wait} as the race's future and counts its answers. */
    final void track(CompletableFuture<Integer> wait) {
        future = wait;
        CompletableFuture<Integer> unused = wait.whenComplete((value, error) -> answers.incrementAndGet());
    }

    /** r2 = answer, r3 = answers, r4 = counters, r5 = leftovers (r1 is the racing call's). */
    final void report(IIIII_Result r) {
        r.r5 = leftovers();
        timer.advanceClock(100);
        r.r2 = answerCode();
        r.r3 = answers.get();
        r.r4 = countersCode();
    }

    /** r3 = answer, r4 = answers, r5 = counters, r6 = leftovers (r1 and r2 are the two racing calls'). */
    final void report(IIIIII_Result r) {
        r.r6 = leftovers();
        timer.advanceClock(100);
        r.r3 = answerCode();
        r.r4 = answers.get();
        r.r5 = countersCode();
    }

    private int leftovers() {
        Invariants.check(waits);
        PurgatoryStats stats = waits.stats();
        return stats.pending() + stats.watched() + stats.keys() + timer.size() - waits.retainedEvents();
    }

    private int answerCode() {
        if (future == null || !future.isDone()) {
            return 0;
        }
        if (future.isCancelled()) {
            return -3;
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            return e.getCause() instanceof TimeoutException ? -2 : -9;
        }
    }

    private int countersCode() {
        PurgatoryStats stats = waits.stats();
        return (int) (stats.completedAtOnce() * 1000 + stats.completed() * 100 + stats.expired() * 10
                + stats.cancelled());
    }
}
