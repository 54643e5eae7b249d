/**
 * Micrometer for purgatories: {@link MicrometerMetrics} binds every purgatory and keyed wait
 * given to it (with {@code PurgatoryBuilder.metrics} or {@code bindMetrics}) to a
 * {@code MeterRegistry} of yours, as the {@code purgatory.*} meters, tagged by purgatory name;
 * {@link MicrometerObservations} (given to a builder's {@code observer}) makes each wait an
 * {@code Observation} in an {@code ObservationRegistry} of yours, a span with Micrometer Tracing,
 * named and tagged by a {@link WaitObservationConvention} ({@link DefaultWaitObservationConvention}
 * unless replaced) from a {@link WaitObservationContext}.
 */
package io.purgatory.micrometer;
