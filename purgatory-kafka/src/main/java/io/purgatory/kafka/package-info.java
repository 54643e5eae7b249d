/**
 * Keyed waits fed from a Kafka topic: {@link io.purgatory.kafka.KafkaFeed} reads every partition
 * of a topic on every instance of a service and hands each record, mapped to a key and a value,
 * to that instance's {@link io.purgatory.KeyedWaits}, so a wait parked on one instance is answered
 * by an event published anywhere. {@link io.purgatory.kafka.KafkaFeedMetrics} binds its numbers
 * to Micrometer.
 */
package io.purgatory.kafka;
