/**
 * Keyed waits fed from a Kafka topic, so a wait parked on one instance of a service is answered
 * by an event published anywhere.
 *
 * <ul>
 *   <li>{@link KafkaFeed}: reads every partition of a topic on every instance and hands each
 *       record, mapped to a key and a value, to that instance's {@link io.purgatory.KeyedWaits}.
 *   <li>{@link FeedState}: where a feed stands, and why it is not ready.
 *   <li>{@link FeedStats}: a snapshot of a feed's numbers.
 *   <li>{@link KafkaFeedMetrics}: binds a feed's numbers to Micrometer.
 *   <li>{@link KafkaTracing}: carries an event's trace from its publisher (a span for its send) to
 *       the waits it answers (Micrometer Tracing, optional).
 * </ul>
 */
package io.purgatory.kafka;
