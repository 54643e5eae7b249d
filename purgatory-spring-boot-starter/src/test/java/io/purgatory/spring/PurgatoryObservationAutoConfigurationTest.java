package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitObserver;
import io.purgatory.WaitOutcome;
import io.purgatory.WaitStart;
import io.purgatory.micrometer.DefaultWaitObservationConvention;
import io.purgatory.micrometer.MicrometerObservations;
import io.purgatory.micrometer.WaitObservationConvention;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Each condition of the observations auto-configuration: with an {@code ObservationRegistry} bean
 * every wait of the factory's purgatories is a {@code purgatory.wait} observation in it; without
 * one, with the property false, or without the Observation API or purgatory-micrometer on the class
 * path, there is no observer and the waits work as before; the application's convention and
 * observer beans take its place.
 */
class PurgatoryObservationAutoConfigurationTest {

    private static final Duration LONG = Duration.ofMinutes(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                    PurgatoryObservationAutoConfiguration.class));

    @Test
    void autoConfiguration_observationRegistry_observesEachWaitOfTheFactorysPurgatories() {
        runner.withUserConfiguration(TestRegistry.class).run(context -> {
            assertThat(context).hasSingleBean(MicrometerObservations.class);
            TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
            assertThat(context.getBean(MicrometerObservations.class).registry()).isSameAs(registry);

            assertThat(answeredWait(context)).isCompletedWithValue("paid");
            DelayedOperationPurgatory<DelayedOperation> purgatory = context.getBean(PurgatoryFactory.class)
                    .purgatory("produce").build();
            purgatory.tryCompleteElseWatch(new Never(), List.of("partition-0"));
            purgatory.close();

            TestObservationRegistryAssert.assertThat(registry)
                    .hasNumberOfObservationsWithNameEqualTo("purgatory.wait", 2)
                    .hasAnObservation(o -> o.hasLowCardinalityKeyValue("purgatory", "payments")
                            .hasLowCardinalityKeyValue("outcome", "completed")
                            .hasHighCardinalityKeyValue("purgatory.keys", "order-42"))
                    .hasAnObservation(o -> o.hasLowCardinalityKeyValue("purgatory", "produce")
                            .hasLowCardinalityKeyValue("outcome", "closed"));
        });
    }

    @Test
    void autoConfiguration_bootsObservationRegistry_itsHandlersSeeEachWait() {
        List<String> stopped = new CopyOnWriteArrayList<>();
        withSpringBootsRegistry(stopped).run(context -> {
            assertThat(context).hasSingleBean(ObservationRegistry.class).hasSingleBean(MicrometerObservations.class);
            assertThat(answeredWait(context)).isCompletedWithValue("paid");
            assertThat(stopped).containsExactly("purgatory.wait completed");
        });
    }

    @Test
    void autoConfiguration_bootsEnablePropertyFalse_turnsTheWaitsOff() {
        List<String> stopped = new CopyOnWriteArrayList<>();
        withSpringBootsRegistry(stopped).withPropertyValues("management.observations.enable.purgatory.wait=false")
                .run(context -> {
                    assertThat(answeredWait(context)).isCompletedWithValue("paid");
                    assertThat(stopped).isEmpty();
                });
    }

    /** Spring Boot's ObservationRegistry, with a handler bean that records each observation stopped. */
    private ApplicationContextRunner withSpringBootsRegistry(List<String> stopped) {
        return runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
                .withBean(ObservationHandler.class, () -> new ObservationHandler<Observation.Context>() {
                    @Override
                    public void onStop(Observation.Context context) {
                        stopped.add(context.getName() + " " + context.getLowCardinalityKeyValue("outcome").getValue());
                    }

                    @Override
                    public boolean supportsContext(Observation.Context context) {
                        return true;
                    }
                });
    }

    @Test
    void withoutAnObservationRegistry_noObserver_andTheWaitsWork() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(WaitObserver.class);
            assertThat(answeredWait(context)).isCompletedWithValue("paid");
        });
    }

    @Test
    void observationsDisabled_noObserver_andNoWaitIsObserved() {
        runner.withUserConfiguration(TestRegistry.class).withPropertyValues("purgatory.observations.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(WaitObserver.class);
                    assertThat(answeredWait(context)).isCompletedWithValue("paid");
                    TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                            .doesNotHaveAnyObservation();
                });
    }

    @Test
    void withoutTheObservationApiOnTheClassPath_noObserver_andTheWaitsWork() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.observation")).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(WaitObserver.class);
            assertThat(answeredWait(context)).isCompletedWithValue("paid");
        });
    }

    @Test
    void autoConfiguration_withoutPurgatoryMicrometer_makesNoObserver() {
        runner.withUserConfiguration(TestRegistry.class)
                .withClassLoader(new FilteredClassLoader(MicrometerObservations.class)).run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(WaitObserver.class);
                    assertThat(answeredWait(context)).isCompletedWithValue("paid");
                });
    }

    @Test
    void autoConfiguration_conventionBean_namesTheObservations() {
        runner.withUserConfiguration(TestRegistry.class)
                .withBean(WaitObservationConvention.class, () -> new DefaultWaitObservationConvention() {
                    @Override
                    public String getName() {
                        return "payments.wait";
                    }
                })
                .run(context -> {
                    assertThat(answeredWait(context)).isDone();
                    TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                            .hasNumberOfObservationsWithNameEqualTo("payments.wait", 1)
                            .hasNumberOfObservationsWithNameEqualTo("purgatory.wait", 0);
                });
    }

    @Test
    void autoConfiguration_applicationsWaitObserver_replacesMicrometers() {
        List<String> ended = new CopyOnWriteArrayList<>();
        runner.withUserConfiguration(TestRegistry.class)
                .withBean(WaitObserver.class, () -> new WaitObserver() {
                    @Override
                    public Object started(WaitStart start) {
                        return start.keys();
                    }

                    @Override
                    public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                        ended.add(handle + " " + outcome);
                    }
                })
                .run(context -> {
                    assertThat(context).doesNotHaveBean(MicrometerObservations.class);
                    assertThat(answeredWait(context)).isDone();
                    assertThat(ended).containsExactly("[order-42] COMPLETED");
                    TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                            .doesNotHaveAnyObservation();
                });
    }

    /** A wait from the context's factory, answered by its event. */
    private static CompletableFuture<String> answeredWait(AssertableApplicationContext context) {
        KeyedWaits<String, String> payments = context.getBean(PurgatoryFactory.class).keyedWaits("payments").build();
        CompletableFuture<String> wait = payments.await("order-42", LONG);
        payments.complete("order-42", "paid");
        payments.close();
        return wait;
    }

    @Configuration(proxyBeanMethods = false)
    static class TestRegistry {
        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }

    /** An operation that only its timeout or a close ends. */
    static final class Never extends DelayedOperation {
        Never() {
            super(LONG.toMillis());
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }
    }
}
