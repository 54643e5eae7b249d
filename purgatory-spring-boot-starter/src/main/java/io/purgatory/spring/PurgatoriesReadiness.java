package io.purgatory.spring;

import java.util.List;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.actuate.health.AdditionalHealthEndpointPath;
import org.springframework.boot.actuate.health.HealthEndpointGroup;
import org.springframework.boot.actuate.health.HealthEndpointGroups;
import org.springframework.boot.actuate.health.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.actuate.health.HttpCodeStatusMapper;
import org.springframework.boot.actuate.health.StatusAggregator;

/**
 * Makes the {@code purgatories} health contributor a member of the {@code readiness} health group,
 * when the context has one: Spring Boot's probe group ({@code management.endpoint.health.probes.enabled},
 * on by itself on Kubernetes and Cloud Foundry), or one the application defines. A full purgatory
 * then takes the instance out of rotation ({@code /actuator/health/readiness} answers 503) and
 * never restarts it: the {@code liveness} group is left alone. What the group's {@code exclude}
 * property names stays out ({@code management.endpoint.health.group.readiness.exclude=purgatories},
 * or {@code purgatories/<name>} for one). Runs after Spring Boot's probe post-processor, which
 * creates the group (see the auto-configuration).
 */
final class PurgatoriesReadiness implements HealthEndpointGroupsPostProcessor {

    static final String GROUP = "readiness";
    static final String CONTRIBUTOR = "purgatories";

    private final Set<String> excluded;

    /** Joins the readiness group, but for what {@code excluded} (the group's exclude property) names. */
    PurgatoriesReadiness(Set<String> excluded) {
        this.excluded = Set.copyOf(excluded);
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        HealthEndpointGroup readiness = groups.get(GROUP);
        if (readiness == null || excluded.contains(CONTRIBUTOR) || excluded.contains("*")) {
            return groups;
        }
        return new WithReadiness(groups, new Joined(readiness, excluded));
    }

    /** The groups, with the readiness group replaced; what Spring Boot's own groups map, still mapped. */
    private record WithReadiness(HealthEndpointGroups groups, HealthEndpointGroup readiness)
            implements HealthEndpointGroups, AdditionalPathsMapper {

        @Override
        public HealthEndpointGroup getPrimary() {
            return groups.getPrimary();
        }

        @Override
        public Set<String> getNames() {
            return groups.getNames();
        }

        @Override
        public HealthEndpointGroup get(String name) {
            return GROUP.equals(name) ? readiness : groups.get(name);
        }

        @Override
        public List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
            return groups instanceof AdditionalPathsMapper paths
                    ? paths.getAdditionalPaths(endpointId, webServerNamespace) : null;
        }
    }

    /**
     * The readiness group, with the purgatories as members too (the contributor, and each
     * purgatory in it: {@code purgatories/<name>}) but for those excluded; the rest is the group's own.
     */
    private record Joined(HealthEndpointGroup group, Set<String> excluded) implements HealthEndpointGroup {

        @Override
        public boolean isMember(String name) {
            boolean purgatory = name.equals(CONTRIBUTOR) || name.startsWith(CONTRIBUTOR + "/");
            return group.isMember(name) || (purgatory && !excluded.contains(name));
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return group.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return group.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return group.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return group.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return group.getAdditionalPath();
        }
    }
}
