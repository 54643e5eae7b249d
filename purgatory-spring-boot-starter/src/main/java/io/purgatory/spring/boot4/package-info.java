/**
 * What the starter needs of Spring Boot 4 alone: its health API (the
 * {@code org.springframework.boot.health} packages), which shows the starter's Boot-neutral checks
 * ({@link io.purgatory.spring.health}) as health contributors and joins them to the readiness
 * group. On Spring Boot 3.5, {@code purgatory-spring-boot3-starter} does the same with Boot 3's
 * API, and this package's auto-configuration stays off (its classes are not there).
 *
 * <p>{@link PurgatoryHealthAutoConfiguration}: the health contributors and the readiness join.
 */
package io.purgatory.spring.boot4;
