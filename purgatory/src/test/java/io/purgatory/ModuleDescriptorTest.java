package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.Timer;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolvedModule;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The module descriptors of timer-core and purgatory, read from the built artifacts (the jar, or
 * the classes directory of the module under test) as a module-path user gets them: the names are
 * the stable {@code io.purgatory.timer} and {@code io.purgatory}, each exports exactly its API
 * package to everyone (timer-core its internal package to the purgatory only) and opens nothing,
 * and the graph resolves against the real SLF4J jar, with no Micrometer. The tests run on the
 * class path (see the surefire configuration), so this is where the descriptors are proven.
 */
class ModuleDescriptorTest {

    private static final String TIMER = "io.purgatory.timer";
    private static final String PURGATORY = "io.purgatory";

    private final ModuleFinder finder = ModuleFinder.of(locationOf(Timer.class), locationOf(DelayedOperation.class),
            locationOf(Logger.class));

    @Test
    void timerCore_descriptor_namesTheModuleAndExportsOnlyItsApiPackage() {
        ModuleDescriptor timer = descriptor(TIMER);

        assertThat(timer.isOpen()).isFalse();
        assertThat(timer.isAutomatic()).isFalse();
        assertThat(timer.exports().stream().filter(e -> !e.isQualified()).map(Exports::source))
                .containsExactly(TIMER);
        assertThat(timer.exports().stream().filter(Exports::isQualified).map(e -> e.source() + " to " + e.targets()))
                .as("EntryAccess: the library's own timer entries, for the purgatory only")
                .containsExactly(TIMER + ".internal to [" + PURGATORY + "]");
        assertThat(timer.opens()).isEmpty();
        assertThat(requires(timer)).isEqualTo(Map.of("org.slf4j", Set.of()));
    }

    @Test
    void purgatory_descriptor_namesTheModuleAndExportsOnlyItsApiPackage() {
        ModuleDescriptor purgatory = descriptor(PURGATORY);

        assertThat(purgatory.isOpen()).isFalse();
        assertThat(purgatory.isAutomatic()).isFalse();
        assertThat(unqualifiedExports(purgatory)).isEqualTo(Set.of(PURGATORY));
        assertThat(purgatory.opens()).isEmpty();
        assertThat(requires(purgatory)).as("@GuardedBy is read at compile time only: static, so users need it not")
                .isEqualTo(Map.of(
                        TIMER, Set.of(Requires.Modifier.TRANSITIVE),
                        "org.slf4j", Set.of(),
                        "com.google.errorprone.annotations", Set.of(Requires.Modifier.STATIC)));
    }

    @Test
    void moduleGraph_resolvedFromTheArtifacts_readsItsDependenciesAndServesTheExportedApi() throws Exception {
        Configuration graph = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), Set.of(PURGATORY));

        ResolvedModule purgatory = graph.findModule(PURGATORY).orElseThrow();
        assertThat(purgatory.reads()).extracting(ResolvedModule::name)
                .contains(TIMER, "org.slf4j", "java.base")
                .noneMatch(name -> name.startsWith("micrometer"));

        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(graph, ClassLoader.getPlatformClassLoader());
        Class<?> clockClass = layer.findLoader(TIMER).loadClass("io.purgatory.timer.ManualClock");
        assertThat(clockClass.getModule().getName()).isEqualTo(TIMER);
        assertThat(clockClass.getModule().getDescriptor().isAutomatic()).isFalse();
        Object clock = clockClass.getConstructor(long.class).newInstance(42L);
        assertThat(clockClass.getMethod("nanoTime").invoke(clock)).isEqualTo(42L);
    }

    private ModuleDescriptor descriptor(String name) {
        ModuleReference module = finder.find(name).orElseThrow(() -> new AssertionError(
                "no module named " + name + " among " + finder.findAll().stream()
                        .map(m -> m.descriptor().name() + " at " + m.location().orElse(null))
                        .collect(Collectors.toList())));
        return module.descriptor();
    }

    private static Set<String> unqualifiedExports(ModuleDescriptor module) {
        assertThat(module.exports()).as("qualified exports of %s", module.name())
                .noneMatch(Exports::isQualified);
        return module.exports().stream().map(Exports::source).collect(Collectors.toSet());
    }

    /** Each required module but the implicit java.base, with its modifiers. */
    private static Map<String, Set<Requires.Modifier>> requires(ModuleDescriptor module) {
        Map<String, Set<Requires.Modifier>> requires = new TreeMap<>();
        for (Requires r : module.requires()) {
            if (!r.name().equals("java.base")) {
                requires.put(r.name(), r.modifiers());
            }
        }
        return requires;
    }

    /** The jar or classes directory {@code type} was loaded from. */
    private static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
