/**
 * Spring Boot auto-configuration of purgatories and keyed waits: beans on one shared runtime,
 * bound to the context's {@code MeterRegistry}, each wait observed in its
 * {@code ObservationRegistry}, settled on graceful shutdown, listed by the
 * {@code purgatories} actuator endpoint and health contributor, and cancelled with the web
 * requests that wait on them. Add the starter, build keyed waits with the factory, and return
 * their futures from controllers.
 *
 * <ul>
 *   <li>{@link PurgatoryFactory}: builders of keyed waits and purgatories on the shared runtime,
 *       with the properties, metrics and observer applied: what an application uses.
 *   <li>{@link PurgatoryProperties}: the {@code purgatory.*} properties, validated as they bind.
 *   <li>{@link PurgatoriesEndpoint}: the {@code purgatories} actuator endpoint.
 *   <li>{@link PurgatoryAutoConfiguration}: the shared runtime, the factory, the metrics binding
 *       of purgatory beans and the shutdown that settles them.
 *   <li>{@link PurgatoryMetricsAutoConfiguration}: the {@code purgatory.*} meters in the
 *       context's {@code MeterRegistry}.
 *   <li>{@link PurgatoryObservationAutoConfiguration}: each wait of the factory's purgatories a
 *       {@code purgatory.wait} observation in the context's {@code ObservationRegistry}.
 *   <li>{@link PurgatoryActuatorAutoConfiguration}: the endpoint and the health contributor.
 *   <li>{@link PurgatoryWebAutoConfiguration}: the answers of controllers that return a wait's
 *       future, in Spring MVC and WebFlux.
 *   <li>{@link PurgatoryHealthChecks}: the checks of the {@code purgatories} health contributor.
 *   <li>{@link PurgatoryKafkaAutoConfiguration}: with {@code purgatory-kafka}, a feed per entry of
 *       {@code purgatory.kafka.feeds}, its meters, its readiness, closed before its waits.
 *   <li>{@link KafkaFeedMapping}: how an auto-configured feed maps a record to a key and a value.
 *   <li>{@link KafkaFeedHealthChecks}: the checks of the {@code kafkaFeeds} health contributor.
 * </ul>
 */
package io.purgatory.spring;
