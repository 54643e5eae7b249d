/**
 * Spring Boot auto-configuration of purgatories and keyed waits: beans on one shared runtime,
 * bound to the context's {@code MeterRegistry}, settled on graceful shutdown, listed by the
 * {@code purgatories} actuator endpoint and health contributor, and cancelled with the web
 * requests that wait on them. Add the starter; build keyed waits with the {@link
 * io.purgatory.spring.PurgatoryFactory}; return their futures from controllers. The
 * {@code purgatory.*} properties are {@link io.purgatory.spring.PurgatoryProperties}.
 */
package io.purgatory.spring;
