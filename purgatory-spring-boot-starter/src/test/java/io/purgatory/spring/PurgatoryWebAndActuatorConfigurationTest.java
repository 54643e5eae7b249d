package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.DelayedFuturePurgatory;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyRenderer;
import io.purgatory.KeyedWaits;
import io.purgatory.PendingOperation;
import io.purgatory.spring.boot4.PurgatoryHealthAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/** The conditions of the web and actuator auto-configuration. */
class PurgatoryWebAndActuatorConfigurationTest {

    private static final AutoConfigurations STARTER = AutoConfigurations.of(PurgatoryAutoConfiguration.class,
            PurgatoryActuatorAutoConfiguration.class, PurgatoryWebAutoConfiguration.class,
            PurgatoryHealthAutoConfiguration.class);
    private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(EndpointAutoConfiguration.class,
            WebEndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
            HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class);
    private static final AutoConfigurations PROBES = AutoConfigurations.of(
            ApplicationAvailabilityAutoConfiguration.class, AvailabilityHealthContributorAutoConfiguration.class,
            AvailabilityProbesAutoConfiguration.class);

    @Test
    void webBeans_servletApplication_answerAndCancelWaits() {
        new WebApplicationContextRunner().withConfiguration(STARTER).run(context -> assertThat(context)
                .hasSingleBean(WaitExceptionAdvice.class).hasSingleBean(WaitReturnValueHandlers.class));
    }

    @Test
    void webBeans_servletApplicationWithoutSpringMvc_onlyAnswer() {
        new WebApplicationContextRunner().withConfiguration(STARTER)
                .withClassLoader(new FilteredClassLoader(RequestMappingHandlerAdapter.class))
                .run(context -> assertThat(context).hasSingleBean(WaitExceptionAdvice.class)
                        .doesNotHaveBean(WaitReturnValueHandlers.class));
    }

    @Test
    void webBeans_reactiveApplication_answerWaits() {
        new ReactiveWebApplicationContextRunner().withConfiguration(STARTER).run(context -> assertThat(context)
                .hasSingleBean(WaitExceptionAdvice.class).doesNotHaveBean(WaitReturnValueHandlers.class));
    }

    @Test
    void webBeans_noWebApplication_areNotCreated() {
        new ApplicationContextRunner().withConfiguration(STARTER).run(context -> assertThat(context)
                .doesNotHaveBean(WaitExceptionAdvice.class).doesNotHaveBean(WaitReturnValueHandlers.class));
    }

    @Test
    void endpoint_exposedOrNot_existsOnlyWhenExposed() {
        ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(STARTER);
        runner.run(context -> assertThat(context).doesNotHaveBean(PurgatoriesEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=purgatories")
                .run(context -> assertThat(context).hasSingleBean(PurgatoriesEndpoint.class));
    }

    @Test
    void endpoint_exposed_listsEachPurgatoryBeanByName() {
        new ApplicationContextRunner().withConfiguration(STARTER)
                .withPropertyValues("management.endpoints.web.exposure.include=purgatories")
                .withBean("payments", KeyedWaits.class, () -> KeyedWaits.builder("payment-waits").build())
                .run(context -> {
                    KeyedWaits<?, ?> waits = context.getBean(KeyedWaits.class);
                    @SuppressWarnings("unchecked")
                    var unused = ((KeyedWaits<String, String>) waits).await("a", Duration.ofMinutes(10));
                    PurgatoriesEndpoint endpoint = context.getBean(PurgatoriesEndpoint.class);

                    PurgatoriesEndpoint.PurgatoryView view = endpoint.purgatories().purgatories().get("payment-waits");
                    assertThat(view.bean()).isEqualTo("payments");
                    assertThat(view.pending()).isEqualTo(1);
                    assertThat(endpoint.purgatory("payment-waits", null, null).counters()).isEqualTo(view);
                    assertThat(endpoint.purgatory("payment-waits", null, null).pendingOperations())
                            .extracting(PendingOperation::keys).containsExactly(List.of("a"));
                    assertThat(endpoint.purgatory("payments", null, null)).isNull();
                    assertThat(endpoint.purgatories().runtimes()).containsOnlyKeys("purgatoryRuntime");
                });
    }

    @Test
    void endpoint_keysProperty_showsKeysSoAndAKeyRendererBeanWins() {
        ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(STARTER)
                .withPropertyValues("management.endpoints.web.exposure.include=purgatories")
                .withBean("payments", KeyedWaits.class, () -> KeyedWaits.builder("payment-waits").build());
        String key = "alice@example.com/" + "x".repeat(100);
        runner.run(context -> assertThat(firstKeys(context, key)).containsExactly(key.substring(0, 64) + "…"));
        runner.withPropertyValues("purgatory.actuator.keys=hidden")
                .run(context -> assertThat(firstKeys(context, key)).containsExactly("*"));
        runner.withPropertyValues("purgatory.actuator.keys=5")
                .run(context -> assertThat(firstKeys(context, key)).containsExactly("alice…"));
        runner.withBean(KeyRenderer.class, () -> k -> "id-" + k.toString().length())
                .run(context -> assertThat(firstKeys(context, key)).containsExactly("id-118"));
    }

    @SuppressWarnings("unchecked")
    private static List<String> firstKeys(org.springframework.context.ApplicationContext context, String key) {
        var unused = ((KeyedWaits<String, String>) context.getBean(KeyedWaits.class)).await(key,
                Duration.ofMinutes(10));
        return context.getBean(PurgatoriesEndpoint.class).purgatory("payment-waits", "1", null).pendingOperations()
                .get(0).keys();
    }

    @Test
    void endpointAndHealth_everyKindOfPurgatoryBean_isListedAndCheckedByItsClassAsType() {
        new ApplicationContextRunner().withConfiguration(STARTER).withConfiguration(ACTUATOR)
                .withPropertyValues("management.endpoints.web.exposure.include=purgatories")
                .withBean("waits", KeyedWaits.class, () -> KeyedWaits.builder("a-waits").build())
                .withBean("operations", DelayedOperationPurgatory.class,
                        () -> DelayedOperationPurgatory.builder("b-operations").build())
                .withBean("futures", DelayedFuturePurgatory.class,
                        () -> new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("c-futures")))
                .run(context -> {
                    Map<String, PurgatoriesEndpoint.PurgatoryView> listed = context.getBean(PurgatoriesEndpoint.class)
                            .purgatories().purgatories();
                    assertThat(listed).containsOnlyKeys("a-waits", "b-operations", "c-futures");
                    assertThat(listed.values()).extracting(PurgatoriesEndpoint.PurgatoryView::type)
                            .containsExactly("keyed-waits", "delayed-operation-purgatory", "delayed-future-purgatory");
                    CompositeHealthContributor health = context.getBean("purgatoriesHealthContributor",
                            CompositeHealthContributor.class);
                    assertThat(health.stream().map(HealthContributors.Entry::name))
                            .containsExactly("a-waits", "b-operations", "c-futures");
                    context.getBean(DelayedFuturePurgatory.class).close();
                    assertThat(((HealthIndicator) health.getContributor("c-futures")).health().getStatus())
                            .isEqualTo(Status.OUT_OF_SERVICE);
                });
    }

    @Test
    void health_onByDefaultUnderItsName_offByProperty() {
        ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(STARTER)
                .withConfiguration(ACTUATOR)
                .withBean("payments", KeyedWaits.class, () -> KeyedWaits.builder("payment-waits").build());
        runner.run(context -> assertThat(context.getBean(HealthContributorRegistry.class)
                .getContributor("purgatories")).isSameAs(context.getBean("purgatoriesHealthContributor")));
        runner.withPropertyValues("management.health.purgatories.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("purgatoriesHealthContributor"));
    }

    @Test
    void readiness_withProbes_hasThePurgatoriesAndLivenessHasNot() {
        ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(STARTER)
                .withConfiguration(ACTUATOR).withConfiguration(PROBES)
                .withBean("payments", KeyedWaits.class, () -> KeyedWaits.builder("payments").build());
        runner.withPropertyValues("management.endpoint.health.probes.enabled=true").run(context -> {
            HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
            assertThat(groups.get("readiness").isMember("purgatories")).isTrue();
            assertThat(groups.get("readiness").isMember("purgatories/payments")).isTrue();
            assertThat(groups.get("readiness").isMember("readinessState")).isTrue();
            assertThat(groups.get("readiness").isMember("livenessState")).isFalse();
            assertThat(groups.get("liveness").isMember("purgatories/payments")).isFalse();
            assertThat(groups.getPrimary().isMember("purgatories")).isTrue();
        });
        runner.withPropertyValues("management.endpoint.health.probes.enabled=true",
                        "management.endpoint.health.group.readiness.exclude=purgatories")
                .run(context -> assertThat(context.getBean(HealthEndpointGroups.class).get("readiness")
                        .isMember("purgatories/payments")).isFalse());
        runner.withPropertyValues("management.endpoint.health.probes.enabled=true",
                        "management.endpoint.health.group.readiness.exclude=purgatories/payments")
                .run(context -> {
                    HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
                    assertThat(groups.get("readiness").isMember("purgatories/payments")).isFalse();
                    assertThat(groups.get("readiness").isMember("purgatories/orders")).isTrue();
                });
        runner.withPropertyValues("management.endpoint.health.group.readiness.include=ping")
                .run(context -> assertThat(context.getBean(HealthEndpointGroups.class).get("readiness")
                        .isMember("purgatories/payments")).as("a readiness group of the application's").isTrue());
        runner.run(context -> assertThat(context.getBean(HealthEndpointGroups.class).get("readiness")
                .isMember("purgatories/payments")).as("Spring Boot 4 has probes by default").isTrue());
        runner.withPropertyValues("management.endpoint.health.probes.enabled=false")
                .run(context -> assertThat(context.getBean(HealthEndpointGroups.class).get("readiness"))
                        .as("no probes, no readiness group").isNull());
    }

    @Test
    void actuatorBeans_withoutTheActuatorOrTheHealthModule_noEndpointOrNoHealth() {
        ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(STARTER)
                .withPropertyValues("management.endpoints.web.exposure.include=purgatories");
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(PurgatoriesEndpoint.class)
                        .hasBean("purgatoriesHealthContributor")); // Spring Boot 4's health is a module of its own
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(PurgatoriesEndpoint.class)
                        .doesNotHaveBean("purgatoriesHealthContributor"));
    }
}
