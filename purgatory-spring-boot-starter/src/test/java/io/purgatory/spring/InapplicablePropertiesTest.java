package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.KeyRenderer;
import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code purgatory.*} property that is set but cannot apply fails the start-up, naming the
 * property (Spring Boot's {@code InvalidConfigurationPropertyValueException}, which its failure
 * analyzer prints as a short report); one that applies starts.
 */
class InapplicablePropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                    PurgatoryKafkaAutoConfiguration.class));

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "purgatory.runtime.tick=5ms | with its own runtime | purgatory.runtime.tick | defines its own PurgatoryRuntime",
        "purgatory.actuator.keys=hidden | with a KeyRenderer | purgatory.actuator.keys | defines a KeyRenderer bean",
        "purgatory.observations.link-answers=true | purgatory.observations.enabled=false"
            + " | purgatory.observations.link-answers | purgatory.observations.enabled=false",
        "purgatory.metrics.buckets=10ms | purgatory.metrics.enabled=false | purgatory.metrics.buckets"
            + " | purgatory.metrics.enabled=false"})
    void startup_propertyThatCannotApply_failsNamingIt(String setting, String beside, String property,
                                                       String reason) {
        ApplicationContextRunner context = switch (beside) {
            case "with its own runtime" ->
                    runner.withBean("own", PurgatoryRuntime.class, () -> PurgatoryRuntime.builder("own").build());
            case "with a KeyRenderer" -> runner.withBean(KeyRenderer.class, () -> KeyRenderer.HIDDEN);
            default -> runner.withPropertyValues(beside);
        };
        context.withPropertyValues(setting).run(started -> assertThat(started).getFailure()
                .extracting(InapplicablePropertiesTest::refusal)
                .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, refused -> {
                    assertThat(refused.getName()).isEqualTo(property);
                    assertThat(refused.getReason()).contains(reason);
                }));
    }

    @Test
    void startup_propertiesThatApply_start() {
        runner.withPropertyValues("purgatory.runtime.tick=5ms", "purgatory.observations.link-answers=false",
                "purgatory.observations.enabled=false", "purgatory.metrics.buckets=10ms")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void startup_kafkaPropertyWithoutPurgatoryKafka_failsNamingIt() {
        runner.withClassLoader(new FilteredClassLoader("io.purgatory.kafka"))
                .withPropertyValues("purgatory.kafka.feeds.payments.topic=payments")
                .run(context -> assertThat(context).getFailure().extracting(InapplicablePropertiesTest::refusal)
                        .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, refused -> {
                            assertThat(refused.getName()).isEqualTo("purgatory.kafka.feeds.payments.topic");
                            assertThat(refused.getReason()).contains("purgatory-kafka is not on the class path");
                        }));
    }

    @Test
    void feed_namingNoKeyedWaitsBean_failsNamingItsTopicProperty() {
        runner.withPropertyValues("purgatory.kafka.bootstrap-servers=127.0.0.1:9",
                        "purgatory.kafka.feeds.nothing.topic=t")
                .run(context -> assertThat(context).getFailure().extracting(InapplicablePropertiesTest::refusal)
                        .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, refused -> {
                            assertThat(refused.getName()).isEqualTo("purgatory.kafka.feeds.nothing.topic");
                            assertThat(refused.getReason()).contains("no KeyedWaits bean named 'nothing'");
                        }));
    }

    @Test
    void feed_ofWaitsThatAreNotStringsWithoutAMapping_failsNamingItsTopicProperty() {
        runner.withUserConfiguration(IntegerWaits.class)
                .withPropertyValues("purgatory.kafka.bootstrap-servers=127.0.0.1:9",
                        "purgatory.kafka.feeds.counts.topic=t")
                .run(context -> assertThat(context).getFailure().extracting(InapplicablePropertiesTest::refusal)
                        .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, refused -> {
                            assertThat(refused.getName()).isEqualTo("purgatory.kafka.feeds.counts.topic");
                            assertThat(refused.getReason()).contains("declare a KafkaFeedMapping bean");
                        }));
    }

    @Test
    void feed_withoutBrokers_failsNamingTheProperty() {
        runner.withUserConfiguration(IntegerWaits.class)
                .withBean(KafkaFeedMapping.class, () -> KafkaFeedMapping.of("counts", r -> "k", r -> 1))
                .withPropertyValues("purgatory.kafka.feeds.counts.topic=t")
                .run(context -> assertThat(context).getFailure().extracting(InapplicablePropertiesTest::refusal)
                        .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
                                refused -> assertThat(refused.getName())
                                        .isEqualTo("purgatory.kafka.bootstrap-servers")));
    }

    /** The refusal in the start-up failure's chain, or the failure itself if there is none. */
    private static Throwable refusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidConfigurationPropertyValueException) {
                return cause;
            }
        }
        return failure;
    }

    @Configuration(proxyBeanMethods = false)
    static class IntegerWaits {
        @Bean
        KeyedWaits<String, Integer> counts() {
            return KeyedWaits.builder("counts").build();
        }
    }
}
