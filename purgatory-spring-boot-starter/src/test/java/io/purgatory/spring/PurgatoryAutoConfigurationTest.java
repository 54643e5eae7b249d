package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.DelayedFuturePurgatory;
import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.MetricsRecorderFactory;
import io.purgatory.PurgatoryFullException;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.WaitTimeoutException;
import io.purgatory.micrometer.MicrometerMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Each condition of the core and metrics auto-configuration, in contexts without a server. */
class PurgatoryAutoConfigurationTest {

    private static final Duration LONG = Duration.ofMinutes(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                    PurgatoryMetricsAutoConfiguration.class));

    @Test
    void autoConfiguration_defaults_aSharedRuntimeAFactoryOnItAndTheShutdown() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(PurgatoryRuntime.class).hasSingleBean(PurgatoryFactory.class)
                    .hasSingleBean(PurgatoryShutdown.class);
            PurgatoryRuntime runtime = context.getBean(PurgatoryRuntime.class);
            assertThat(runtime.name()).isEqualTo("purgatory");
            assertThat(context.getBean(PurgatoryFactory.class).runtime()).isSameAs(runtime);
        });
    }

    @Test
    void metrics_withoutAMeterRegistry_nothingIsBound() {
        runner.withUserConfiguration(UserWaits.class).run(context -> {
            assertThat(context).doesNotHaveBean(MetricsRecorderFactory.class);
            assertThat(context.getBean(UserWaits.class).waits.hasMetrics()).isFalse();
        });
    }

    @Test
    void metrics_withAMeterRegistry_everyPurgatoryBeanNotYetBoundIsBound() {
        runner.withUserConfiguration(Registry.class, UserWaits.class, UserPurgatory.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(context).hasSingleBean(MicrometerMetrics.class);
            assertThat(context.getBean(UserWaits.class).waits.hasMetrics()).isTrue();
            assertThat(registry.get("purgatory.pending").tag("purgatory", "user-waits").gauge()).isNotNull();
            assertThat(registry.get("purgatory.pending").tag("purgatory", "user-purgatory").gauge()).isNotNull();
        });
    }

    @Test
    void metrics_futurePurgatoryBean_isBoundLikeTheOthersAndClosedAtShutdown() {
        CompletableFuture<String> never = new CompletableFuture<>();
        DelayedFuturePurgatory[] futures = new DelayedFuturePurgatory[1];
        Runnable[] answered = {null};
        runner.withUserConfiguration(Registry.class)
                .withBean("futures", DelayedFuturePurgatory.class,
                        () -> new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("futures")))
                .run(context -> {
                    futures[0] = context.getBean(DelayedFuturePurgatory.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(futures[0].hasMetrics()).isTrue();
                    futures[0].tryCompleteElseWatch(LONG, List.of(never), () -> answered[0] = () -> { });
                    assertThat(registry.get("purgatory.pending").tag("purgatory", "futures").gauge().value())
                            .isEqualTo(1.0);
                });

        assertThat(futures[0].isClosed()).as("closed at shutdown").isTrue();
        assertThat(answered[0]).as("its pending operation was answered by the close").isNotNull();
        assertThat(futures[0].stats().expired()).isEqualTo(1);
    }

    @Test
    void metrics_beanBoundAlready_isLeftAsItIs() {
        SimpleMeterRegistry own = new SimpleMeterRegistry();
        runner.withUserConfiguration(Registry.class)
                .withBean("bound", KeyedWaits.class,
                        () -> KeyedWaits.builder("bound").metrics(MicrometerMetrics.of(own)).build())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(own.find("purgatory.pending").tag("purgatory", "bound").gauge()).isNotNull();
                    assertThat(context.getBean(MeterRegistry.class).find("purgatory.pending").gauge()).isNull();
                });
    }

    @Test
    void metrics_disabled_bindsNothing() {
        runner.withUserConfiguration(Registry.class, UserWaits.class)
                .withPropertyValues("purgatory.metrics.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(MetricsRecorderFactory.class);
                    assertThat(context.getBean(UserWaits.class).waits.hasMetrics()).isFalse();
                });
    }

    @Test
    void autoConfiguration_withoutMicrometerOnTheClassPath_theRestWorks() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
                .withUserConfiguration(UserWaits.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(MetricsRecorderFactory.class)
                            .hasSingleBean(PurgatoryFactory.class);
                    assertThat(context.getBean(UserWaits.class).waits.hasMetrics()).isFalse();
                });
    }

    @Test
    void metrics_applicationsMetricsRecorderFactory_replacesMicrometers() {
        SimpleMeterRegistry own = new SimpleMeterRegistry();
        runner.withUserConfiguration(Registry.class, UserWaits.class)
                .withBean("ownMetrics", MetricsRecorderFactory.class, () -> MicrometerMetrics.of(own))
                .run(context -> {
                    assertThat(context).doesNotHaveBean("purgatoryMetrics");
                    assertThat(own.find("purgatory.pending").tag("purgatory", "user-waits").gauge()).isNotNull();
                    assertThat(context.getBean(MeterRegistry.class).find("purgatory.pending").gauge()).isNull();
                });
    }

    @Test
    void metrics_bucketsProperty_setsTheHistogramBoundaries() {
        runner.withUserConfiguration(Registry.class).withPropertyValues("purgatory.metrics.buckets=1s,10ms")
                .run(context -> assertThat(context.getBean(MicrometerMetrics.class).buckets())
                        .containsExactly(Duration.ofMillis(10), Duration.ofSeconds(1)));
        runner.withUserConfiguration(Registry.class).withPropertyValues("purgatory.metrics.buckets=")
                .run(context -> assertThat(context.getBean(MicrometerMetrics.class).buckets()).isEmpty());
        runner.withUserConfiguration(Registry.class)
                .run(context -> assertThat(context.getBean(MicrometerMetrics.class).buckets())
                        .isEqualTo(MicrometerMetrics.DEFAULT_BUCKETS));
    }

    @Test
    void runtime_applicationsOwn_replacesTheShared() {
        runner.withBean("own", PurgatoryRuntime.class, () -> PurgatoryRuntime.builder("own").build())
                .run(context -> {
                    assertThat(context).hasSingleBean(PurgatoryRuntime.class);
                    assertThat(context.getBean(PurgatoryFactory.class).runtime().name()).isEqualTo("own");
                });
    }

    @Test
    void factory_applicationsOwn_replacesTheStarters() {
        runner.withBean("own", PurgatoryFactory.class,
                        () -> new PurgatoryFactory(PurgatoryRuntime.builder("own").build(), new PurgatoryProperties(),
                                () -> null))
                .run(context -> assertThat(context.getBean(PurgatoryFactory.class).runtime().name()).isEqualTo("own"));
    }

    @Test
    void runtime_properties_configureTheSharedRuntime() {
        runner.withPropertyValues("purgatory.runtime.name=orders", "purgatory.runtime.tick=5ms",
                "purgatory.runtime.wheel-size=64").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(PurgatoryRuntime.class).name()).isEqualTo("orders");
                });
        // Bad values fail at binding: PropertiesValidationTest.
    }

    @Test
    void factory_maxPendingProperty_limitsEachPurgatoryItBuilds() {
        runner.withUserConfiguration(FactoryWaits.class).withPropertyValues("purgatory.max-pending=1")
                .run(context -> {
                    KeyedWaits<String, String> waits = context.getBean(FactoryWaits.class).waits;
                    CompletableFuture<String> first = waits.await("a", LONG);

                    assertThatThrownBy(() -> waits.await("b", LONG).join())
                            .hasCauseInstanceOf(PurgatoryFullException.class);
                    assertThat(first).isNotDone();
                });
    }

    @Test
    void factory_shardsProperty_configuresEachPurgatoryItBuilds() {
        runner.withUserConfiguration(FactoryWaits.class).withPropertyValues("purgatory.shards=1")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void shutdown_closePolicyProperty_settlesThePendingWaitsByIt() {
        CompletableFuture<?>[] pending = new CompletableFuture<?>[1];
        runner.withUserConfiguration(FactoryWaits.class).withPropertyValues("purgatory.close-policy=cancel")
                .run(context -> pending[0] = context.getBean(FactoryWaits.class).waits.await("a", LONG));

        assertThat(pending[0]).isCancelled();
    }

    @Test
    void shutdown_closePolicyComplete_appliesToPurgatoriesAndLeavesKeyedWaitsExpiring() {
        CompletableFuture<?>[] pending = new CompletableFuture<?>[1];
        runner.withUserConfiguration(FactoryWaits.class).withPropertyValues("purgatory.close-policy=complete")
                .run(context -> {
                    PurgatoryFactory factory = context.getBean(PurgatoryFactory.class);
                    DelayedOperationPurgatory<DelayedOperation> purgatory = factory.purgatory("completing").build();
                    purgatory.close();
                    pending[0] = context.getBean(FactoryWaits.class).waits.await("a", LONG);
                });

        assertThat(pending[0]).failsWithin(Duration.ZERO).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(WaitTimeoutException.class, closed -> assertThat(closed.closed()).isTrue());
    }

    @Test
    void shutdown_beansAndWaitsOnlyOnTheRuntime_settlesBoth() {
        CompletableFuture<?>[] pending = new CompletableFuture<?>[2];
        PurgatoryRuntime[] runtime = new PurgatoryRuntime[1];
        runner.withUserConfiguration(FactoryWaits.class).run(context -> {
            pending[0] = context.getBean(FactoryWaits.class).waits.await("a", LONG);
            KeyedWaits<String, String> notABean = context.getBean(PurgatoryFactory.class).keyedWaits("kept").build();
            pending[1] = notABean.await("b", LONG);
            runtime[0] = context.getBean(PurgatoryRuntime.class);
        });

        for (CompletableFuture<?> wait : pending) {
            assertThat(wait).failsWithin(Duration.ZERO).withThrowableThat().havingCause()
                    .isInstanceOf(WaitTimeoutException.class);
        }
        assertThat(runtime[0].isClosed()).isTrue();
    }

    @Test
    void startup_twoPurgatoriesOfOneName_fails() {
        runner.withBean("first", KeyedWaits.class, () -> KeyedWaits.builder("same").build())
                .withBean("second", KeyedWaits.class, () -> KeyedWaits.builder("same").build())
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("beans 'first' and 'second' are both purgatories named 'same'"));
    }

    @Test
    void factory_withAMeterRegistry_buildsOnTheSharedRuntimeWithMetrics() {
        runner.withUserConfiguration(Registry.class, FactoryWaits.class).run(context -> {
            KeyedWaits<String, String> waits = context.getBean(FactoryWaits.class).waits;
            assertThat(waits.hasMetrics()).isTrue();
            context.getBean(PurgatoryRuntime.class).close();
            assertThat(waits.isClosed()).isTrue(); // it ran on the shared runtime
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Registry {
        @Bean
        SimpleMeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    /** Keyed waits the application builds itself. */
    static class UserWaits {
        final KeyedWaits<String, String> waits = KeyedWaits.builder("user-waits").build();

        @Bean
        KeyedWaits<String, String> userWaits() {
            return waits;
        }
    }

    /** A purgatory the application builds itself. */
    @Configuration(proxyBeanMethods = false)
    static class UserPurgatory {
        @Bean
        DelayedOperationPurgatory<DelayedOperation> userPurgatory() {
            return DelayedOperationPurgatory.builder("user-purgatory").build();
        }
    }

    /** Keyed waits from the factory. */
    static class FactoryWaits {
        KeyedWaits<String, String> waits;

        @Bean
        KeyedWaits<String, String> factoryWaits(PurgatoryFactory purgatories) {
            waits = purgatories.keyedWaits("factory-waits").build();
            return waits;
        }
    }
}
