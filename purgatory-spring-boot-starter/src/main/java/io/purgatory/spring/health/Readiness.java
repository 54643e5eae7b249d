package io.purgatory.spring.health;

import java.util.Set;

/**
 * Which health contributors the starter adds to the {@code readiness} group: the purgatories'
 * ({@value #PURGATORIES}) and the Kafka feeds' ({@value #KAFKA_FEEDS}), each with its members
 * ({@code purgatories/<name>}), but for what the group's {@code exclude} property names. The
 * {@code liveness} group is never joined: a full purgatory or a missing topic takes the instance
 * out of rotation, a restart cures neither.
 */
public final class Readiness {

    /** The group joined. */
    public static final String GROUP = "readiness";
    /** The purgatories' contributor. */
    public static final String PURGATORIES = "purgatories";
    /** The Kafka feeds' contributor. */
    public static final String KAFKA_FEEDS = "kafkaFeeds";
    /** The property that names what stays out of the group. */
    public static final String EXCLUDE_PROPERTY = "management.endpoint.health.group.readiness.exclude";

    private final Set<String> excluded;

    /** The membership, but for what {@code excluded} (the group's exclude property) names. */
    public Readiness(Set<String> excluded) {
        this.excluded = Set.copyOf(excluded);
    }

    /** Whether the group should be joined at all: false when its exclude property names everything. */
    public boolean joins() {
        return !excluded.contains("*");
    }

    /** Whether {@code name}, a contributor or a member path, is one of the starter's, not excluded. */
    public boolean isMember(String name) {
        return (isOrIsUnder(name, PURGATORIES) || isOrIsUnder(name, KAFKA_FEEDS)) && !excludedOrUnderExcluded(name);
    }

    private boolean excludedOrUnderExcluded(String name) {
        int slash = name.indexOf('/');
        return excluded.contains(name) || (slash > 0 && excluded.contains(name.substring(0, slash)));
    }

    private static boolean isOrIsUnder(String name, String contributor) {
        return name.equals(contributor) || name.startsWith(contributor + "/");
    }
}
