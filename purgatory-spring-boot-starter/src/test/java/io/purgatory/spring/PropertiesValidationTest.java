package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.validation.MapBindingResult;

/**
 * A bad {@code purgatory.*} property fails the startup as it is bound, with Spring Boot's short
 * report (the one it prints): the property, the value and the allowed range, no exception chain.
 * The rules agree with the core's builders at every bound.
 */
class PropertiesValidationTest {

    /** Lines of the report at most: Boot's frame, one property's four lines, the action. */
    private static final int SHORT = 16;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PurgatoryAutoConfiguration.class,
                    PurgatoryMetricsAutoConfiguration.class));

    static Stream<Arguments> badProperties() {
        return Stream.of(
                Arguments.of("purgatory.shards=3", "purgatory.shards", "3", "a power of two from 1 to 65536"),
                Arguments.of("purgatory.shards=131072", "purgatory.shards", "131072", "a power of two from 1 to 65536"),
                Arguments.of("purgatory.shards=0", "purgatory.shards", "0", "a power of two from 1 to 65536"),
                Arguments.of("purgatory.max-pending=-1", "purgatory.max-pending", "-1", "must be 0 (no limit) or more"),
                Arguments.of("purgatory.runtime.tick=0", "purgatory.runtime.tick", "PT0S",
                        "must be from 1ms to 2305843009213693952ms"),
                Arguments.of("purgatory.runtime.tick=-5ms", "purgatory.runtime.tick", "PT-0.005S",
                        "must be from 1ms to 2305843009213693952ms"),
                Arguments.of("purgatory.runtime.wheel-size=1", "purgatory.runtime.wheel-size", "1",
                        "must be from 2 to 65536"),
                Arguments.of("purgatory.runtime.wheel-size=65537", "purgatory.runtime.wheel-size", "65537",
                        "must be from 2 to 65536"),
                Arguments.of("purgatory.runtime.name= ", "purgatory.runtime.name", "", "must not be blank"),
                Arguments.of("purgatory.health.rejection-window=-1s", "purgatory.health.rejection-window", "PT-1S",
                        "must be 0 or more"),
                Arguments.of("purgatory.metrics.buckets=10ms,0ms", "purgatory.metrics.buckets", "[PT0.01S, PT0S]",
                        "each must be positive, and no two equal"),
                Arguments.of("purgatory.metrics.buckets=10ms,10ms", "purgatory.metrics.buckets",
                        "[PT0.01S, PT0.01S]", "each must be positive, and no two equal"),
                Arguments.of("purgatory.actuator.keys=secret", "purgatory.actuator.keys", "secret",
                        "must be shown (toString cut to 64 characters), hidden (each as *) or a number"),
                Arguments.of("purgatory.actuator.keys=0", "purgatory.actuator.keys", "0",
                        "or a number of characters from 1 to 999999999"),
                Arguments.of("purgatory.close-policy=never", "purgatory.close-policy", "never",
                        "The following values are valid:\n\n    CANCEL\n    COMPLETE\n    EXPIRE"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badProperties")
    void startup_badProperty_failsWithAShortReportNamingThePropertyItsValueAndTheAllowedRange(
            String setting, String property, String value, String range) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();

            String report = report(context.getStartupFailure());

            assertThat(report).contains("Property: " + property, "Value: \"" + value + "\"", range);
            assertThat(report).doesNotContain("tickMs", "wheelSize must", "Error creating bean");
            assertThat(report.lines()).as(report).hasSizeLessThanOrEqualTo(SHORT);
        });
    }

    @Test
    void goodProperties_atTheirBounds_start() {
        runner.withPropertyValues("purgatory.shards=65536", "purgatory.max-pending=0", "purgatory.runtime.tick=1ns",
                        "purgatory.runtime.wheel-size=2", "purgatory.health.rejection-window=0s",
                        "purgatory.metrics.buckets=", "purgatory.actuator.keys=1")
                .run(context -> assertThat(context).hasNotFailed());
    }

    /**
     * What a user sees: Spring Boot logs the report alone, with no stack trace. Spring Boot's own
     * logging setup is off here, so that the test's appender keeps what it logs off the console.
     */
    @Test
    void badProperty_realStartup_logsOnlyTheShortReport() {
        SpringApplication app = new SpringApplication(Minimal.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger boot = (Logger) LoggerFactory.getLogger("org.springframework.boot");
        logged.start();
        boot.addAppender(logged);
        boot.setAdditive(false);
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
        try {
            assertThatThrownBy(() -> app.run("--spring.main.banner-mode=off", "--purgatory.runtime.tick=0"))
                    .isNotNull();
        } finally {
            System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
            boot.detachAppender(logged);
            boot.setAdditive(true);
        }

        assertThat(logged.list).singleElement().satisfies(event -> {
            assertThat(event.getLoggerName()).endsWith("LoggingFailureAnalysisReporter");
            assertThat(event.getThrowableProxy()).as("no stack trace").isNull();
            String report = event.getFormattedMessage();
            assertThat(report).contains("APPLICATION FAILED TO START", "Property: purgatory.runtime.tick",
                    "must be from 1ms to", "Update your application's configuration").doesNotContain("tickMs");
            assertThat(report.lines()).as(report).hasSizeLessThanOrEqualTo(SHORT + 4);
        });
    }

    /** An application with the starter's core auto-configuration only. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(PurgatoryAutoConfiguration.class)
    static class Minimal {
    }

    /** The rules accept exactly what the core's builders accept, at and around every bound. */
    @Test
    void validationRules_everyBound_agreeWithTheCoresBuilders() {
        for (int shards : new int[] {Integer.MIN_VALUE, -1, 0, 1, 2, 3, 512, 65535, 65536, 65537, 131072}) {
            agree("shards=" + shards, p -> p.setShards(shards), "shards",
                    () -> DelayedOperationPurgatory.builder("x").shards(shards));
        }
        for (int maxPending : new int[] {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE}) {
            agree("max-pending=" + maxPending, p -> p.setMaxPending(maxPending), "max-pending",
                    () -> DelayedOperationPurgatory.builder("x").maxPending(maxPending));
        }
        for (int wheelSize : new int[] {-1, 0, 1, 2, 3, 20, 65535, 65536, 65537}) {
            agreeOnRuntime("wheel-size=" + wheelSize, r -> r.setWheelSize(wheelSize), "wheel-size",
                    () -> TimerSettings.DEFAULT.withWheelSize(wheelSize));
        }
        for (Duration tick : List.of(Duration.ofMillis(-1), Duration.ZERO, Duration.ofNanos(1), Duration.ofMillis(1),
                Duration.ofMillis(Timer.MAX_DELAY_MS), Duration.ofMillis(Timer.MAX_DELAY_MS + 1))) {
            agreeOnRuntime("tick=" + tick, r -> r.setTick(tick), "tick",
                    () -> TimerSettings.DEFAULT.withTick(tick));
        }
        for (String name : new String[] {"", " ", "\t", "a", "purgatory"}) {
            agreeOnRuntime("name='" + name + "'", r -> r.setName(name), "name", () -> PurgatoryRuntime.builder(name));
        }
    }

    private static void agree(String what, Consumer<PurgatoryProperties> set, String field, Runnable core) {
        PurgatoryProperties properties = new PurgatoryProperties();
        set.accept(properties);
        check(what, properties, field, core);
    }

    private static void agreeOnRuntime(String what, Consumer<PurgatoryProperties.SharedRuntime> set, String field,
                                       Runnable core) {
        PurgatoryProperties.SharedRuntime runtime = new PurgatoryProperties().getRuntime();
        set.accept(runtime);
        check(what, runtime, field, core);
    }

    private static void check(String what, Object target, String field, Runnable core) {
        MapBindingResult errors = new MapBindingResult(new HashMap<>(), "purgatory");
        PropertyRules.check(target, errors);
        boolean coreAccepts;
        try {
            core.run();
            coreAccepts = true;
        } catch (IllegalArgumentException refused) {
            coreAccepts = false;
        }
        assertThat(!errors.hasFieldErrors(field)).as("the rules accept %s as the core does", what)
                .isEqualTo(coreAccepts);
    }

    /**
     * The report Spring Boot prints for {@code failure}: the first analysis of its failure analyzers,
     * in their order, as {@code LoggingFailureAnalysisReporter} lays it out.
     */
    private static String report(Throwable failure) {
        ClassLoader loader = PropertiesValidationTest.class.getClassLoader();
        ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                .and(Environment.class, new StandardEnvironment());
        List<FailureAnalyzer> analyzers = new ArrayList<>(SpringFactoriesLoader.forDefaultResourceLocation(loader)
                .load(FailureAnalyzer.class, arguments, FailureHandler.handleMessage((message, skipped) -> { })));
        AnnotationAwareOrderComparator.sort(analyzers);
        FailureAnalysis analysis = analyzers.stream().map(a -> a.analyze(failure)).filter(Objects::nonNull)
                .findFirst().orElseThrow(() -> new AssertionError("no analysis of " + failure, failure));
        return String.format("Description:%n%n%s%n%nAction:%n%n%s%n", analysis.getDescription(),
                analysis.getAction());
    }
}
