package io.purgatory.kafka;

import java.util.concurrent.TimeUnit;

/**
 * The health of one feed: its phase, the last signs of life of the broker and of its thread, its
 * lag and whether it keeps up. Written by the feed's thread (and the facade at start and close),
 * read from any thread by {@link KafkaFeed#state()}, {@link KafkaFeed#isLagging()}, the stats and
 * the meters: every field is volatile, and each reading is O(1).
 */
final class FeedHealth {

    /*
     * Implementation notes.
     *
     * (F5) The state is decided when it is read, from the phase the feed's thread last published
     *      and two times it writes: its own beat (at each step, and between records at most every
     *      BEAT_NANOS) and the broker's last answer to a check (sent every second). A reader that
     *      finds either older than MAX_SILENCE sees STALLED or UNREACHABLE, so READY turns within
     *      MAX_SILENCE of the last sign of life even while the thread is blocked and publishes
     *      nothing. The lag is known only in the phases READING_BACK and READY, only while the
     *      broker answers, and only once a poll has measured it since the last partition joined
     *      the assignment (LagTracker): otherwise it reads as unknown (-1), never as a stale 0.
     */

    static final long MAX_SILENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(KafkaFeed.MAX_SILENCE.toMillis());
    /** A lag not measured yet: -1 in the stats, NaN on the gauges. */
    static final long UNKNOWN = -1;

    private volatile FeedState phase = FeedState.NEW;
    private volatile long beatNanos;
    private volatile long answeredNanos;
    private volatile int partitions;
    private volatile long lag = UNKNOWN;
    private volatile long maxPartitionLag = UNKNOWN;
    // behindSinceNanos is written before behind is set, and read after it: a reader that sees
    // behind sees the time it began.
    private volatile long behindSinceNanos;
    private volatile boolean behind;
    // dispatchSinceNanos is written before dispatching is set, as behindSinceNanos before behind
    private volatile long dispatchSinceNanos;
    private volatile boolean dispatching;

    /** The feed starts at {@code nowNanos}: behind until it has read back, and with no answer yet. */
    void started(long nowNanos) {
        beatNanos = nowNanos;
        answeredNanos = nowNanos;
        behindSinceNanos = nowNanos;
        behind = true;
        phase = FeedState.STARTING;
    }

    /** The feed's thread ended, or the feed was closed. */
    void stopped() {
        phase = FeedState.STOPPED;
    }

    /** The phase the feed's thread is in: STARTING to READY (never UNREACHABLE or STALLED, which are read). */
    void phase(FeedState now) {
        phase = now;
    }

    /** The feed's thread makes progress at {@code nowNanos}. */
    void beat(long nowNanos) {
        beatNanos = nowNanos;
    }

    /** The broker answered a check at {@code nowNanos}. */
    void answered(long nowNanos) {
        answeredNanos = nowNanos;
    }

    void partitions(int count) {
        partitions = count;
    }

    /**
     * The lag now: {@code total} records behind the end offsets, at most {@code max} on one
     * partition; {@link #UNKNOWN} for both while it is not measured.
     */
    void lag(long total, long max) {
        lag = total;
        maxPartitionLag = max;
    }

    /** Whether the feed has yet to reach the end offsets it saw at {@code sinceNanos}. */
    void behind(boolean isBehind, long sinceNanos) {
        if (isBehind) {
            behindSinceNanos = sinceNanos;
        }
        behind = isBehind;
    }

    /** The feed hands a batch of records to the waits from {@code nowNanos} on, until {@link #dispatched()}. */
    void dispatching(long nowNanos) {
        dispatchSinceNanos = nowNanos;
        dispatching = true;
    }

    void dispatched() {
        dispatching = false;
    }

    /** The state at {@code nowNanos} (F5). */
    FeedState state(long nowNanos) {
        FeedState published = phase;
        if (published == FeedState.NEW || published == FeedState.STOPPED) {
            return published;
        }
        if (nowNanos - beatNanos > MAX_SILENCE_NANOS) {
            return FeedState.STALLED;
        }
        if (nowNanos - answeredNanos > MAX_SILENCE_NANOS) {
            return FeedState.UNREACHABLE;
        }
        return published;
    }

    /**
     * The feed has not reached, within {@code thresholdNanos}, the end offsets it saw then; or it
     * has spent that long on one batch (a mapping function or a dependent stage blocks its thread,
     * and the lag it last measured is stale); or the broker is silent (its lag is unknown).
     */
    boolean lagging(long nowNanos, long thresholdNanos) {
        FeedState state = state(nowNanos);
        if (state == FeedState.UNREACHABLE || state == FeedState.STALLED) {
            return true;
        }
        if (dispatching && nowNanos - dispatchSinceNanos >= thresholdNanos) {
            return true;
        }
        return behind && nowNanos - behindSinceNanos >= thresholdNanos;
    }

    /** The records behind the end of the topic, or {@link #UNKNOWN} while the feed cannot know them (F5). */
    long lagRecords(long nowNanos) {
        return lagKnown(nowNanos) ? lag : UNKNOWN;
    }

    /** The records behind on the most behind partition, or {@link #UNKNOWN} while the feed cannot know them. */
    long maxPartitionLagRecords(long nowNanos) {
        return lagKnown(nowNanos) ? maxPartitionLag : UNKNOWN;
    }

    int partitionCount() {
        return partitions;
    }

    private boolean lagKnown(long nowNanos) {
        FeedState state = state(nowNanos);
        return state == FeedState.READY || state == FeedState.READING_BACK;
    }
}
