/**
 * The starter's health checks in terms every Spring Boot line shares: {@link
 * io.purgatory.spring.health.Check}, the checks of the purgatory beans and the Kafka feeds by name
 * ({@link io.purgatory.spring.health.NamedChecks}), and which of them join the readiness group
 * ({@link io.purgatory.spring.health.Readiness}). Spring Boot moved its health API between
 * generations ({@code org.springframework.boot.actuate.health} in 3,
 * {@code org.springframework.boot.health.contributor} in 4): each line's starter adapts these to
 * its own, and nothing else differs.
 */
package io.purgatory.spring.health;
