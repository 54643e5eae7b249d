package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.purgatory.DelayedOperation;
import io.purgatory.timer.Timer;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The descriptor of {@code io.purgatory.micrometer}, read from the built artifact as a module-path
 * user gets it: it exports its one package and reads the core and Micrometer (meters and
 * observations) for its users.
 */
class ModuleDescriptorTest {

    private static final String NAME = "io.purgatory.micrometer";

    @Test
    void descriptor_exportsOnlyItsPackage_andTheGraphResolvesWithTheCoreAndMicrometer() {
        ModuleFinder finder = ModuleFinder.of(locationOf(MicrometerMetrics.class), locationOf(DelayedOperation.class),
                locationOf(Timer.class), locationOf(Logger.class), locationOf(MeterRegistry.class),
                locationOf(ObservationRegistry.class), locationOf(KeyValues.class));
        ModuleDescriptor module = finder.find(NAME).orElseThrow().descriptor();

        assertThat(module.isAutomatic()).isFalse();
        assertThat(module.isOpen()).isFalse();
        assertThat(module.exports()).noneMatch(Exports::isQualified);
        assertThat(module.exports().stream().map(Exports::source)).containsExactly(NAME);
        assertThat(module.requires().stream().filter(r -> r.modifiers().contains(Requires.Modifier.TRANSITIVE))
                .map(Requires::name).collect(Collectors.toSet())).isEqualTo(Set.of("io.purgatory", "micrometer.core",
                        "micrometer.observation", "micrometer.commons"));

        Configuration graph = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), Set.of(NAME));
        assertThat(graph.findModule(NAME).orElseThrow().reads()).extracting(ResolvedModule::name)
                .contains("io.purgatory", "io.purgatory.timer", "micrometer.core", "micrometer.observation",
                        "micrometer.commons");
    }

    private static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
