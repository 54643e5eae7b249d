package io.purgatory.spring.boot4;

import io.purgatory.spring.health.Readiness;
import java.util.List;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;

/**
 * Makes the starter's health contributors members of the {@code readiness} health group, when the
 * context has one (Spring Boot's probe group, or one the application defines): which ones is
 * {@link Readiness}'s rule. Everything else about the group (its status mapping, its additional
 * path) stays Spring Boot's. Runs after Spring Boot's probe post-processor, which creates the group.
 */
final class ReadinessJoin implements HealthEndpointGroupsPostProcessor {

    private final Readiness readiness;

    ReadinessJoin(Readiness readiness) {
        this.readiness = readiness;
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        HealthEndpointGroup group = groups.get(Readiness.GROUP);
        if (group == null || !readiness.joins()) {
            return groups;
        }
        return new WithReadiness(groups, new Joined(group, readiness));
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
            return Readiness.GROUP.equals(name) ? readiness : groups.get(name);
        }

        @Override
        public List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
            return groups instanceof AdditionalPathsMapper paths
                    ? paths.getAdditionalPaths(endpointId, webServerNamespace) : null;
        }
    }

    /** The readiness group, with the starter's contributors as members too; the rest is the group's own. */
    private record Joined(HealthEndpointGroup group, Readiness readiness) implements HealthEndpointGroup {

        @Override
        public boolean isMember(String name) {
            return group.isMember(name) || readiness.isMember(name);
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
