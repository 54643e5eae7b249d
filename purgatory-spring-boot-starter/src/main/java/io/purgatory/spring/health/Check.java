package io.purgatory.spring.health;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One health check's answer, in terms every Spring Boot line shares: a {@link Status} and the
 * details to show. The starter of each Boot line turns it into that line's {@code Health}.
 *
 * @param status  the status
 * @param details the details, in the order given (unmodifiable)
 */
public record Check(Status status, Map<String, Object> details) {

    /** The statuses a check answers: Spring Boot's own, by the same names. */
    public enum Status {
        /** Serving. */
        UP,
        /** Not serving, by design or for now: full, closed, or not ready yet. */
        OUT_OF_SERVICE,
        /** Not serving because something is wrong, such as a topic that does not exist. */
        DOWN
    }

    /** A check of {@code status} with {@code details}. */
    public Check {
        Objects.requireNonNull(status, "status");
        details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }
}
