package io.purgatory.kafka;

import io.purgatory.KeyedWaits;
import io.purgatory.timer.Clock;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job of a feed's thread: find and position the topic's partitions, then poll and hand each
 * record to the keyed waits, until {@link #stop()} or until the waits close. It owns the consumer
 * and the admin client (used by this thread only, closed when the loop ends).
 */
final class FeedLoop<K, V> implements Runnable {

    /*
     * Implementation notes.
     *
     * (F1) No gap: a partition's position is set once, when it joins the assignment, to the first
     *      offset whose timestamp is at least its read-back time, or to the end offset read
     *      *before* that lookup when there is none; a record appended between the two lookups has
     *      a later timestamp, so the second lookup finds it. From then on only poll() moves the
     *      position, past the records it returned, and every returned record is dispatched (F4).
     *      A broker restart or an error leaves the position where it was, so reading resumes at
     *      the next record. The one exception is a position the broker no longer has
     *      (OffsetOutOfRange: records deleted, or the log truncated): the partition is positioned
     *      again by timestamp, and the skip is logged and counted.
     * (F2) Nothing completes a closed wait: the loop stops at the first record after the waits
     *      closed, and a complete() that races their close() answers nothing (KeyedWaits settles
     *      each wait once, and complete() after close() returns 0).
     * (F3) Every partition in the consumer's assignment has a position the feed set: a partition
     *      joins the assignment in the step that seeks it, after its lookup was answered (a
     *      failed lookup leaves it pending and unassigned, tried again after the backoff), and
     *      OffsetOutOfRange takes partitions out of the assignment before they are positioned
     *      again. So poll() never meets a partition without a position, and a lookup that fails
     *      at start (a broker restarting) costs a retry, not the partition. Positioner keeps it.
     * (F4) Dispatch is total: each record poll() returned ends in exactly one outcome, whatever
     *      any user code it calls throws (key and value functions, and complete(), which runs the
     *      keys' hashCode and equals and the waits' dependent stages): any Throwable, a
     *      StackOverflowError or an OutOfMemoryError too, is contained, counted against its record
     *      and reported, and reporting never throws. An interrupt a stage leaves on the thread is
     *      cleared. So no user code ends the thread, skips the rest of a batch, or leaves the
     *      counters between two outcomes; anything else that fails in a step is a counted
     *      consumer error, retried after the backoff.
     *
     * Readiness (F5) is FeedHealth's: this loop publishes the phase and the signs of life it reads.
     * (F6) The topic's partitions are asked of the broker (Admin describeTopics) at the check of
     *      every second, with their end offsets, not of the consumer's metadata cache, which
     *      refreshes on its own schedule: a partition added to the topic is found within a second
     *      plus a round trip, is pending (so the feed is not ready, F5) from the moment the answer
     *      is taken, between two records too, until it is positioned (F3), and is read from its
     *      first record.
     */

    static final Logger LOG = LoggerFactory.getLogger(KafkaFeed.class);

    private static final long BEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final Duration IDLE = Duration.ofMillis(50);

    private final String name;
    private final Consumer<byte[], byte[]> consumer;
    private final TopicAdmin admin;
    private final KeyedWaits<K, V> waits;
    private final Function<? super ConsumerRecord<byte[], byte[]>, ? extends K> keyOf;
    private final Function<? super ConsumerRecord<byte[], byte[]>, ? extends V> valueOf;
    private final FeedCounters counters;
    private final FeedHealth health;
    private final FeedErrors errors;
    /** How records are handed over in their trace, or null: untraced (KafkaTracing's F7). */
    private final RecordTracing tracing;
    private final Clock clock;
    private final LongSupplier wallClockMs;
    private final long readBackMs;
    private final Duration pollTimeout;
    private final Duration retryBackoff;
    private final LagTracker lag;
    private final BrokerChecks checks;
    private final Positioner positioner;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private long servicedNanos;

    FeedLoop(FeedConfig<K, V> config, Consumer<byte[], byte[]> consumer, TopicAdmin admin, FeedCounters counters,
             FeedHealth health) {
        FeedEnvironment env = config.env();
        this.name = config.name();
        this.consumer = consumer;
        this.admin = admin;
        this.waits = config.waits();
        this.keyOf = config.keyOf();
        this.valueOf = config.valueOf();
        this.counters = counters;
        this.health = health;
        this.clock = env.clock();
        this.errors = new FeedErrors(name, counters, LOG, clock);
        this.tracing = config.tracing();
        this.wallClockMs = env.wallClockMs();
        this.readBackMs = config.readBack().toMillis();
        this.pollTimeout = env.pollTimeout();
        this.retryBackoff = env.retryBackoff();
        long now = clock.nanoTime();
        this.lag = new LagTracker(health, now);
        this.positioner = new Positioner(consumer, admin, lag, errors, retryBackoff.toNanos(),
                Math.max(0, wallClockMs.getAsLong() - readBackMs));
        this.checks = new BrokerChecks(admin, name, config.topic(), health, lag, positioner, errors,
                config.createTopic(), now);
    }

    /** Asks the loop to end; the consumer's wakeup() breaks a poll under way. Any thread. */
    void stop() {
        stopping = true;
        stopped.countDown();
        consumer.wakeup();
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                if (waits.isClosed()) {
                    LOG.warn("Feed '{}' stops: its keyed waits '{}' were closed before it. Close the feed first"
                            + " (or build it with closeWaits(true) and close only the feed).", name, waits.name());
                    return;
                }
                try {
                    step();
                } catch (WakeupException e) {
                    // stop() woke the consumer: the loop's condition decides
                } catch (Throwable e) { // (F4) a consumer interceptor's Error included
                    errors.consumer("could not read its topic; it retries in " + retryBackoff.toMillis() + " ms", e);
                    pause(retryBackoff);
                }
            }
        } catch (Throwable e) {
            LOG.error("Feed '{}' stopped by an error", name, e); // only logging is left to fail here
        } finally {
            health.stopped();
            closeClients();
        }
    }

    /** One round: the broker's answers and the checks due, positioning, then one poll and its records. */
    void step() {
        long now = clock.nanoTime();
        service(now);
        positioner.step(now);
        publishPhase();
        if (consumer.assignment().isEmpty()) {
            pause(IDLE); // nothing to read yet: the broker's answers come on the admin's thread
            return;
        }
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(pollTimeout);
        } catch (OffsetOutOfRangeException e) {
            errors.consumer("finds positions " + e.offsetOutOfRangePartitions() + " no longer on the broker (deleted"
                    + " or truncated): it reads those partitions again from " + readBackMs + " ms ago", e);
            positioner.lost(e.offsetOutOfRangePartitions().keySet(), Math.max(0, wallClockMs.getAsLong() - readBackMs));
            return;
        }
        dispatch(records);
        for (TopicPartition partition : consumer.assignment()) {
            OptionalLong behind = consumer.currentLag(partition); // the last fetch's: no remote call
            if (behind.isPresent()) {
                lag.lag(partition, behind.getAsLong());
            }
        }
        lag.update(this::positionNow, clock.nanoTime());
        publishPhase();
    }

    Positioner positioner() {
        return positioner;
    }

    private void dispatch(ConsumerRecords<byte[], byte[]> records) {
        health.dispatching(clock.nanoTime());
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                if (stopping || waits.isClosed()) { // (F2)
                    return;
                }
                dispatch(record);
                between(clock.nanoTime());
            }
        } finally {
            health.dispatched();
        }
    }

    /** Hands one record to the waits: exactly one outcome, whatever the user's code throws (F4). */
    private void dispatch(ConsumerRecord<byte[], byte[]> record) {
        counters.read();
        try {
            K key;
            V value;
            try {
                key = keyOf.apply(record);
                if (key == null) {
                    counters.skipped();
                    return;
                }
                value = valueOf.apply(record);
            } catch (Throwable e) {
                errors.mapping(record, e);
                return;
            }
            int answered;
            try {
                answered = tracing == null ? waits.complete(key, value)
                        : tracing.handOver(record, () -> waits.complete(key, value), errors);
            } catch (Throwable e) {
                errors.complete(record, e);
                return;
            }
            counters.handedOver(answered);
        } finally {
            if (Thread.interrupted()) {
                errors.interrupted();
            }
        }
    }

    /**
     * Between records: {@link #service} at most every BEAT_NANOS, so a long batch still shows
     * progress and takes the broker's answers (F5), and the phase they change: a partition the check
     * just found is unread, so the feed is not ready from the next record on (F6). A read-back that
     * ends within the batch may turn the feed ready before the batch's last records are handed over:
     * an event published now still comes after them.
     */
    private void between(long now) {
        if (now - servicedNanos >= BEAT_NANOS) {
            service(now);
            publishPhase();
        }
    }

    /** Shows progress, takes the broker's answers and sends the checks that are due (F5). */
    private void service(long now) {
        servicedNanos = now;
        health.beat(now);
        try {
            checks.service(now, consumer.assignment(), this::positionNow);
        } catch (RuntimeException e) { // between records: nothing may skip the rest of the batch (F4)
            errors.consumer("could not check the broker; it checks again at the next beat", e);
        }
    }

    private void publishPhase() {
        FeedState phase;
        if (!checks.described()) {
            phase = FeedState.STARTING;
        } else if (checks.topicMissing()) {
            phase = FeedState.TOPIC_MISSING;
        } else if (!positioner.allPositioned()) {
            phase = FeedState.POSITIONING;
        } else if (positioner.readingBack(this::positionNow)) {
            phase = FeedState.READING_BACK;
        } else {
            phase = FeedState.READY;
        }
        health.partitions(consumer.assignment().size());
        health.phase(phase);
    }

    /** An assigned partition's position, or empty while the consumer validates it (after a leader change). */
    private OptionalLong positionNow(TopicPartition partition) {
        try {
            return OptionalLong.of(consumer.position(partition, Duration.ZERO));
        } catch (TimeoutException validating) {
            return OptionalLong.empty();
        }
    }

    private void pause(Duration duration) {
        try {
            stopped.await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            errors.interrupted(); // only close() stops the feed; a user's stage may interrupt this thread
        }
    }

    /** Closes both clients, each whatever the other's close throws (a consumer interceptor's close is user code). */
    private void closeClients() {
        try {
            KafkaClients.closeNow(consumer); // (F9) no group, nothing to commit
        } catch (Throwable e) {
            LOG.warn("Feed '{}': closing the consumer failed", name, e);
        }
        try {
            admin.close();
        } catch (Throwable e) {
            LOG.warn("Feed '{}': closing the admin client failed", name, e);
        }
    }
}
