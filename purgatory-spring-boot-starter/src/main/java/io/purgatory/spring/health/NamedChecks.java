package io.purgatory.spring.health;

import java.util.Map;

/**
 * A health contributor's checks, by name: one per purgatory, or one per feed. What the health
 * adapter of each Spring Boot line shows as a composite contributor. Thread-safe.
 */
public interface NamedChecks {

    /** Every check, by name, in a stable order. */
    Map<String, Check> checkAll();

    /** The check named {@code name}, or null if there is none. */
    Check check(String name);
}
