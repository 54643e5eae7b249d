package io.purgatory.spring.boot4;

import io.purgatory.spring.health.Check;
import io.purgatory.spring.health.NamedChecks;
import java.util.stream.Stream;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Spring Boot 4's composite health contributor of a set of {@link NamedChecks}: one indicator per
 * check, by its name ({@code /actuator/health/purgatories/{name}}). Thread-safe.
 */
final class ChecksHealthContributor implements CompositeHealthContributor {

    private final NamedChecks checks;

    ChecksHealthContributor(NamedChecks checks) {
        this.checks = checks;
    }

    @Override
    public HealthContributor getContributor(String name) {
        return checks.check(name) == null ? null : indicator(name);
    }

    @Override
    public Stream<HealthContributors.Entry> stream() {
        return checks.checkAll().keySet().stream().map(name -> new HealthContributors.Entry(name, indicator(name)));
    }

    private HealthIndicator indicator(String name) {
        return () -> {
            Check check = checks.check(name);
            return check == null ? Health.unknown().build() : health(check);
        };
    }

    static Health health(Check check) {
        Status status = switch (check.status()) {
            case UP -> Status.UP;
            case OUT_OF_SERVICE -> Status.OUT_OF_SERVICE;
            case DOWN -> Status.DOWN;
        };
        return Health.status(status).withDetails(check.details()).build();
    }
}
