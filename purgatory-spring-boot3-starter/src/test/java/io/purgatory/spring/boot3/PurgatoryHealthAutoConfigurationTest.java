package io.purgatory.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryFullException;
import io.purgatory.spring.PurgatoryAutoConfiguration;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.availability.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.availability.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.HealthEndpointGroups;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.NamedContributor;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * On Spring Boot 3.5 (this module's tests run on it): the starter's auto-configuration, with this
 * module's health contributor and readiness join on Boot 3's health API.
 */
class PurgatoryHealthAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                    PurgatoryHealthAutoConfiguration.class,
                    EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
                    AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class))
            .withBean("payments", KeyedWaits.class, () -> KeyedWaits.builder("payments").maxPending(1).build());

    @Test
    void health_onSpringBoot3_aFullPurgatoryIsOutOfService() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            CompositeHealthContributor health = context.getBean("purgatoriesHealthContributor",
                    CompositeHealthContributor.class);
            assertThat(health).extracting(NamedContributor::getName).containsExactly("payments");
            HealthIndicator payments = (HealthIndicator) health.getContributor("payments");
            assertThat(payments.health().getStatus()).isEqualTo(Status.UP);

            @SuppressWarnings("unchecked")
            KeyedWaits<String, String> waits = context.getBean(KeyedWaits.class);
            var first = waits.await("a", Duration.ofMinutes(10));
            try {
                var second = waits.await("b", Duration.ofMinutes(10));
                assertThat(second).isCompletedExceptionally(); // the core may fail the future instead of throwing
            } catch (PurgatoryFullException full) {
                // the core as it was: await throws
            }
            assertThat(payments.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(payments.health().getDetails()).containsEntry("rejected", 1L);
            assertThat(first).isNotDone();
        });
    }

    @Test
    void readiness_withProbes_hasThePurgatoriesAndLivenessHasNot() {
        runner.withPropertyValues("management.endpoint.health.probes.enabled=true").run(context -> {
            HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
            assertThat(groups.get("readiness").isMember("purgatories/payments")).isTrue();
            assertThat(groups.get("readiness").isMember("kafkaFeeds/payments")).isTrue();
            assertThat(groups.get("readiness").isMember("readinessState")).isTrue();
            assertThat(groups.get("liveness").isMember("purgatories/payments")).isFalse();
        });
        runner.withPropertyValues("management.endpoint.health.probes.enabled=true",
                        "management.endpoint.health.group.readiness.exclude=purgatories")
                .run(context -> assertThat(context.getBean(HealthEndpointGroups.class).get("readiness")
                        .isMember("purgatories/payments")).isFalse());
        runner.run(context -> assertThat(context.getBean(HealthEndpointGroups.class).get("readiness"))
                .as("Spring Boot 3.5: no probes by default, no readiness group").isNull());
    }
}
