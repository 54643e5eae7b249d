package io.purgatory.bench;

import java.util.Arrays;

/**
 * The fan-out workload's other thread: waits on and answers other keys, one round trip after
 * another, timing each, while the main thread answers the hot key. The main thread marks the
 * answer's start and end ({@link #answering()}, {@link #answered()}); a round trip that overlaps
 * the answer in any part counts as "during", one that ended before it as "before" (the same
 * loop with nothing else going on: the machine's own tail). The answer's end waits for one round
 * trip to have started during it ({@link #awaitRoundTripDuring}), so that "during" is never empty
 * when this thread was off the CPU for the whole answer. Round trips are timed with
 * {@code System.nanoTime()} around each, and kept whole (sorted once at the end).
 */
final class OtherKeyLoop implements AutoCloseable {

    private static final int BEFORE = 0;
    private static final int DURING = 1;
    private static final int AFTER = 2;

    private final FanOutTarget target;
    private final Thread thread;
    private volatile int phase = BEFORE;
    private volatile boolean stop;
    private volatile boolean startedDuring;
    private long[] before = new long[1 << 16];
    private int beforeCount;
    private long[] during = new long[1 << 16];
    private int duringCount;
    private int unanswered;

    /** Starts the loop on {@code target}'s other keys. */
    OtherKeyLoop(FanOutTarget target, String name) {
        this.target = target;
        this.thread = Threads.start(name + "-other-key", this::run);
    }

    private void run() {
        int j = 0;
        while (!stop) {
            int startPhase = phase;
            if (startPhase == DURING && !startedDuring) {
                startedDuring = true;
            }
            long t0 = System.nanoTime();
            boolean done = target.roundTrip(j);
            long nanos = System.nanoTime() - t0;
            int endPhase = phase;
            if (!done) {
                unanswered++;
            }
            if (startPhase == DURING || endPhase == DURING || (startPhase == BEFORE && endPhase == AFTER)) {
                during = append(during, duringCount++, nanos);
            } else if (endPhase == BEFORE) {
                before = append(before, beforeCount++, nanos);
            }
            j = (j + 1) & (FanOutTarget.OTHER_KEYS - 1);
        }
    }

    private static long[] append(long[] array, int index, long value) {
        long[] a = index < array.length ? array : Arrays.copyOf(array, array.length * 2);
        a[index] = value;
        return a;
    }

    /** The hot key's answer starts now. */
    void answering() {
        phase = DURING;
    }

    /** Waits (at most {@code maxMillis}) until a round trip started since {@link #answering()}. */
    void awaitRoundTripDuring(long maxMillis) {
        long end = System.nanoTime() + maxMillis * 1_000_000L;
        while (!startedDuring && System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** The hot key's answer has ended. */
    void answered() {
        phase = AFTER;
    }

    /** Stops the loop and waits for it: the figures below are read after this. Idempotent. */
    void stop() {
        stop = true;
        Threads.joinAll(thread);
    }

    @Override
    public void close() {
        stop();
    }

    /** Round trips that overlapped the answer, sorted, in ns. */
    long[] during() {
        long[] d = Arrays.copyOf(during, duringCount);
        Arrays.sort(d);
        return d;
    }

    /** Round trips that ended before the answer began, sorted, in ns. */
    long[] before() {
        long[] b = Arrays.copyOf(before, beforeCount);
        Arrays.sort(b);
        return b;
    }

    /** Round trips whose wait was not answered by its own answer (0 unless an implementation is broken). */
    int unanswered() {
        return unanswered;
    }
}
