package io.purgatory.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The jars the release publishes, as {@code mvn verify} packaged them: each of the six modules'
 * jar, sources jar and javadoc jar carries the repository's LICENSE and NOTICE in META-INF and
 * names its module and version in the manifest, and each main jar is the JPMS module the README
 * names. Run in the integration-test phase of this module, which the reactor builds after them
 * (see this module's pom).
 */
class PublishedJarsIT {

    private static final Path ROOT = Path.of(System.getProperty("repository.root", ".."));
    private static final String VERSION = System.getProperty("project.version");
    /** Each published module and the JPMS module its main jar is. */
    private static final Map<String, String> MODULES = Map.of("timer-core", "io.purgatory.timer",
            "purgatory", "io.purgatory", "purgatory-micrometer", "io.purgatory.micrometer",
            "purgatory-kafka", "io.purgatory.kafka", "purgatory-spring-boot-starter", "io.purgatory.spring",
            "purgatory-spring-boot3-starter", "io.purgatory.spring.boot3");

    @Test
    void publishedJars_mainSourcesAndJavadoc_carryLicenseNoticeAndTheirVersion() throws IOException {
        assertThat(VERSION).as("the project.version system property").isNotBlank();
        byte[] license = Files.readAllBytes(ROOT.resolve("LICENSE"));
        byte[] notice = Files.readAllBytes(ROOT.resolve("NOTICE"));
        int checked = 0;
        for (String module : MODULES.keySet()) {
            for (String classifier : List.of("", "-sources", "-javadoc")) {
                Path jar = ROOT.resolve(module).resolve("target").resolve(module + "-" + VERSION + classifier + ".jar");
                assertThat(jar).as("packaged by this build").exists();
                try (JarFile file = new JarFile(jar.toFile())) {
                    assertThat(read(file, "META-INF/LICENSE")).as("%s: META-INF/LICENSE", jar).isEqualTo(license);
                    assertThat(read(file, "META-INF/NOTICE")).as("%s: META-INF/NOTICE", jar).isEqualTo(notice);
                    Attributes manifest = file.getManifest().getMainAttributes();
                    assertThat(manifest.getValue("Implementation-Title")).as("%s: Implementation-Title", jar)
                            .isNotBlank();
                    assertThat(manifest.getValue("Implementation-Version")).as("%s: Implementation-Version", jar)
                            .isEqualTo(VERSION);
                }
                checked++;
            }
        }
        assertThat(checked).isEqualTo(3 * MODULES.size());
    }

    @Test
    void publishedMainJars_readAsModules_areTheJpmsModulesTheReadmeNames() {
        for (Map.Entry<String, String> module : MODULES.entrySet()) {
            Path jar = ROOT.resolve(module.getKey()).resolve("target")
                    .resolve(module.getKey() + "-" + VERSION + ".jar");
            List<ModuleDescriptor> found = ModuleFinder.of(jar).findAll().stream().map(ModuleReference::descriptor)
                    .toList();

            assertThat(found).as("%s as a module", jar).singleElement()
                    .extracting(ModuleDescriptor::name).isEqualTo(module.getValue());
        }
    }

    private static byte[] read(JarFile jar, String name) throws IOException {
        ZipEntry entry = jar.getEntry(name);
        if (entry == null) {
            return null;
        }
        try (InputStream in = jar.getInputStream(entry)) {
            return in.readAllBytes();
        }
    }
}
