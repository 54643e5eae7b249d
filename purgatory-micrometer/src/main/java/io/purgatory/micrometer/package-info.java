/**
 * Micrometer meters for purgatories: {@link MicrometerMetrics} binds every purgatory and keyed
 * wait given to it (with {@code PurgatoryBuilder.metrics} or {@code bindMetrics}) to a
 * {@code MeterRegistry} of yours, as the {@code purgatory.*} meters, tagged by purgatory name.
 */
package io.purgatory.micrometer;
