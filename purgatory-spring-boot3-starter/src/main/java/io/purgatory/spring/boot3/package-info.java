/**
 * What the starter needs of Spring Boot 3 alone: its health API ({@code
 * org.springframework.boot.actuate.health}, which Spring Boot 4 moved), showing the starter's
 * Boot-neutral checks ({@link io.purgatory.spring.health}) as health contributors and joining them
 * to the readiness group. Everything else is {@code purgatory-spring-boot-starter}'s, on which this
 * module depends; on Spring Boot 4 this package's auto-configuration stays off.
 *
 * <p>{@link PurgatoryHealthAutoConfiguration}: the health contributors and the readiness join.
 */
package io.purgatory.spring.boot3;
