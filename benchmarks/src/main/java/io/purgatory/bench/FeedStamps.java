package io.purgatory.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The timestamps of one step of the feed-rate workload, event by event: when it was sent, acked,
 * appended by the broker (its LogAppendTime, in ms of the wall clock), returned by {@code poll()}
 * on each of the two instances, handed to that instance's waits, and answered. Event i's key is
 * {@code "<step>.<i>"}; its wait is on instance {@code i % 2}. One writer per array slot (the
 * sender, the producer's thread, each instance's consumer thread); read once every event is
 * answered, after the writers' actions that the answer's observation orders before it (the feed's
 * thread completes the future after its poll and hand-off; the ack is waited for explicitly).
 */
final class FeedStamps {

    static final int INSTANCES = 2;

    final int step;
    final int events;
    final long[] sentAt;
    final long[] ackedAt;
    final long[] appendMs;
    final long[][] polledAt = new long[INSTANCES][];
    final long[][] handedAt = new long[INSTANCES][];
    final long[] answeredAt;
    /** Wall clock minus nanoTime, in ns, taken at the start: turns a LogAppendTime into the nanoTime base. */
    final long wallMinusNanos;

    FeedStamps(int step, int events) {
        this.step = step;
        this.events = events;
        this.sentAt = new long[events];
        this.ackedAt = new long[events];
        this.appendMs = new long[events];
        this.answeredAt = new long[events];
        for (int i = 0; i < INSTANCES; i++) {
            polledAt[i] = new long[events];
            handedAt[i] = new long[events];
        }
        this.wallMinusNanos = wallMinusNanos();
    }

    /** The key of event {@code i} of this step. */
    String key(int i) {
        return step + "." + i;
    }

    /** The instance that holds event {@code i}'s wait. */
    static int waiter(int i) {
        return i % INSTANCES;
    }

    /** The index of this step's event under {@code key}, or -1 (another step's, or no event's). */
    int index(byte[] key) {
        if (key == null) {
            return -1;
        }
        int dot = -1;
        long step = 0;
        long index = 0;
        for (int k = 0; k < key.length; k++) {
            int c = key[k];
            if (c == '.') {
                if (dot >= 0) {
                    return -1;
                }
                dot = k;
            } else if (c >= '0' && c <= '9') {
                if (dot < 0) {
                    step = step * 10 + (c - '0');
                } else {
                    index = index * 10 + (c - '0');
                }
            } else {
                return -1;
            }
            if (step > Integer.MAX_VALUE || index > Integer.MAX_VALUE) {
                return -1;
            }
        }
        return dot > 0 && dot < key.length - 1 && step == this.step && index < events ? (int) index : -1;
    }

    /** {@code poll()} on {@code instance} is returning {@code record}, at {@code now}. */
    void polled(int instance, ConsumerRecord<byte[], byte[]> record, long now) {
        int i = index(record.key());
        if (i >= 0) {
            polledAt[instance][i] = now;
            if (waiter(i) == instance) {
                appendMs[i] = record.timestamp();
            }
        }
    }

    /** {@code instance}'s feed maps {@code record} now, to hand it to its waits; returns the key. */
    String handed(int instance, ConsumerRecord<byte[], byte[]> record) {
        long now = System.nanoTime();
        int i = index(record.key());
        if (i >= 0) {
            handedAt[instance][i] = now;
        }
        return record.key() == null ? null : new String(record.key(), UTF_8);
    }

    /** The broker's append time of event {@code i} in the nanoTime base (1 ms resolution). */
    long appendedAt(int i) {
        return appendMs[i] * 1_000_000L - wallMinusNanos;
    }

    /** The wall clock minus nanoTime, in ns: the reading whose two nanoTime reads were closest. */
    static long wallMinusNanos() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int k = 0; k < 20; k++) {
            long t0 = System.nanoTime();
            long wall = System.currentTimeMillis() * 1_000_000L;
            long t1 = System.nanoTime();
            if (t1 - t0 < best) {
                best = t1 - t0;
                offset = wall - (t0 + (t1 - t0) / 2);
            }
        }
        return offset;
    }

    /** The sorted values of {@code to[i] - from[i]} over the events where both are set, in ns. */
    static long[] stage(long[] from, long[] to) {
        long[] d = new long[from.length];
        int n = 0;
        for (int i = 0; i < from.length; i++) {
            if (from[i] != 0 && to[i] != 0) {
                d[n++] = to[i] - from[i];
            }
        }
        d = Arrays.copyOf(d, n);
        Arrays.sort(d);
        return d;
    }

    /** Per event, the timestamp on its waiter's instance: {@code perInstance[waiter(i)][i]}. */
    long[] atWaiter(long[][] perInstance) {
        long[] at = new long[events];
        for (int i = 0; i < events; i++) {
            at[i] = perInstance[waiter(i)][i];
        }
        return at;
    }

    /** The broker's append times in the nanoTime base (0 where unknown). */
    long[] appendedAt() {
        long[] at = new long[events];
        for (int i = 0; i < events; i++) {
            at[i] = appendMs[i] == 0 ? 0 : appendedAt(i);
        }
        return at;
    }
}
