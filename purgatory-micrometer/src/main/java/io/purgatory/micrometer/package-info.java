/**
 * Micrometer for purgatories: {@link MicrometerMetrics} binds every purgatory and keyed wait
 * given to it (with {@code PurgatoryBuilder.metrics} or {@code bindMetrics}) to a
 * {@code MeterRegistry} of yours, as the {@code purgatory.*} meters, tagged by purgatory name;
 * {@link MicrometerObservations} (given to a builder's {@code observer}) makes each wait an
 * {@code Observation} in an {@code ObservationRegistry} of yours, a span with Micrometer Tracing,
 * named and tagged by a {@link WaitObservationConvention} ({@link DefaultWaitObservationConvention}
 * unless replaced) from a {@link WaitObservationContext}. With Micrometer Tracing,
 * {@link WaitTracingHandler} makes that span at the wait's end and links it to the span of the
 * event that answered it, when that event came in another trace (another instance, through Kafka).
 */
package io.purgatory.micrometer;
