package io.purgatory.kafka;

import io.purgatory.timer.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * What a feed takes from its surroundings: its clocks, how it makes its clients (from the
 * consumer's configuration, and the lookup timeout for the admin), and how long it waits on the
 * broker. The builder's defaults are the real ones; tests replace parts.
 *
 * @param clock the monotonic time of checks, rounds and retries
 * @param wallClockMs the time records' timestamps are compared with (the read-back)
 * @param pollTimeout the longest one poll blocks the feed's thread
 * @param apiTimeout the longest a lookup of the broker may take before it counts as failed
 * @param retryBackoff the pause after a failed call to the broker, before it is tried again
 */
record FeedEnvironment(Clock clock, LongSupplier wallClockMs,
                       Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory,
                       BiFunction<Map<String, Object>, Duration, TopicAdmin> adminFactory,
                       Duration pollTimeout, Duration apiTimeout, Duration retryBackoff) {
}
