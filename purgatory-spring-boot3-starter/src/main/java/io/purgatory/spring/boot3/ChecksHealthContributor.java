package io.purgatory.spring.boot3;

import io.purgatory.spring.health.Check;
import io.purgatory.spring.health.NamedChecks;
import java.util.Iterator;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.NamedContributor;
import org.springframework.boot.actuate.health.Status;

/**
 * Spring Boot 3's composite health contributor of a set of {@link NamedChecks}: one indicator per
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
    public Iterator<NamedContributor<HealthContributor>> iterator() {
        return checks.checkAll().keySet().stream()
                .map(name -> NamedContributor.of(name, (HealthContributor) indicator(name))).iterator();
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
