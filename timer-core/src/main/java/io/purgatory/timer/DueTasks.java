package io.purgatory.timer;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tasks the driver has expired and not yet handed over: gathered in expiry
 * order and handed to the {@link Dispatcher} a batch at a time, or one by one when the timer does
 * not batch. Driver only: not thread-safe.
 */
final class DueTasks {

    /*
     * Implementation notes.
     *
     * Handing each expired task to an executor on its own costs a lambda, a queue node, a lock and
     * often an unpark per task, which shows in the lateness of timers due together (measured in
     * docs/benchmarks.md). A batch costs one array, and SystemTimer splits it into runs.
     *
     * (B1) The driver flushes after each bucket and at the end of each turn (expireDue,
     *      cascadeAhead), in a finally block: an expired task is no longer SCHEDULED, so nothing
     *      else would find it again. A batch never spans two buckets, so a task that cancels one
     *      due later still wins. A helping drain (TimerEngine E7) expires nothing and never flushes.
     * (B2) The batch is copied out before the dispatcher runs: its hand-offs keep the array until
     *      they have run, while this buffer gathers the next batch.
     * (B3) No task leaves the buffer before its hand-off is certain: if the copy fails (out of
     *      memory), the tasks stay gathered for the next flush; the dispatcher never throws.
     * (B4) The tasks of a hand-off leave the engine's size just before it, one subtraction per
     *      batch (TimerEngine E1), wherever the batch is cut: at a flush or by a full buffer. So a
     *      task handed over, running or run, is never counted. Counted out at the driver's flush
     *      instead, a batch cut by a full buffer ran still counted until its bucket's end.
     */

    /** Expired tasks handed over at once, at most. */
    static final int MAX_BATCH = 256;

    private final Dispatcher dispatcher;
    /** The engine's size, which counts a gathered task until its hand-off (B4). */
    private final LongAdder size;
    private final TimerEntry[] pending;
    private int count;

    /**
     * Tasks expired by the driver of an engine whose size is {@code size}, still counting them (B4);
     * {@code batching} false: every task goes to the dispatcher as soon as it is added (ManualTimer).
     */
    DueTasks(Dispatcher dispatcher, LongAdder size, boolean batching) {
        this.dispatcher = dispatcher;
        this.size = size;
        this.pending = batching ? new TimerEntry[MAX_BATCH] : null;
    }

    /** Gathers {@code task}, expired and still counted in the engine's size (B4), for a hand-off. */
    void add(TimerEntry task) {
        if (pending == null) {
            size.decrement(); // (B4): it runs at once, maybe reading size
            dispatcher.dispatch(task);
            return;
        }
        pending[count++] = task;
        if (count == MAX_BATCH) {
            flush();
        }
    }

    /** Hands the tasks gathered so far to the dispatcher, counting them out of the size first (B1, B2, B4). */
    void flush() {
        int n = count;
        if (n == 0) {
            return;
        }
        if (n == 1) {
            TimerEntry task = pending[0];
            pending[0] = null;
            count = 0;
            size.decrement(); // (B4)
            dispatcher.dispatch(task);
            return;
        }
        TimerEntry[] batch = Arrays.copyOf(pending, n); // (B2), (B3)
        count = 0;
        Arrays.fill(pending, 0, n, null);
        size.add(-n); // (B4)
        dispatcher.dispatchAll(batch, n);
    }
}
