package io.purgatory.examples.javadoc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generated javadoc of each module links the types of the modules it uses to their javadoc as
 * published for the same version (javadoc.io), and each such link names a page, and an anchor in
 * it, that the used module's own javadoc has: the links resolve once the artifacts are published.
 * Reads the javadoc that the reactor generated in each module's package phase.
 */
class JavadocLinksTest {

    private static final String GROUP = "io.purgatory";
    private static final Pattern SIBLING_LINK = Pattern.compile(
            "href=\"https://javadoc\\.io/doc/" + Pattern.quote(GROUP) + "/([^/\"]+)/([^/\"]+)/([^\"#]*)(?:#([^\"]*))?\"");

    private static String version;

    @BeforeAll
    static void generatedJavadoc() {
        version = System.getProperty("purgatory.version");
        assertThat(version).as("purgatory.version, set by examples/pom.xml's surefire configuration").isNotBlank();
        PublishedModules.assumeJavadocGenerated();
    }

    @Test
    void purgatoryBuilder_linksManualTimer_toTimerCoresPageOfTheSameVersion() {
        String page = PublishedModules.read(PublishedModules.apidocs("purgatory")
                .resolve("io.purgatory/io/purgatory/PurgatoryBuilder.html"));
        String manualTimer = "io.purgatory.timer/io/purgatory/timer/ManualTimer.html";
        List<String> hrefs = Pattern.compile("<a href=\"([^\"]*)\"[^>]*><code>ManualTimer</code></a>").matcher(page)
                .results().map(m -> m.group(1)).distinct().toList();

        assertThat(hrefs).containsExactly("https://javadoc.io/doc/io.purgatory/timer-core/" + version + "/"
                + manualTimer);
        assertThat(PublishedModules.apidocs("timer-core").resolve(manualTimer)).isRegularFile();
    }

    @Test
    void everyLinkToAModulesJavadoc_isToThisVersion_andToAPageAndAnchorItHas() throws IOException {
        Map<String, Integer> linksByModule = new TreeMap<>();
        List<String> broken = new ArrayList<>();
        for (String module : generatedModules()) {
            for (Path file : htmlFiles(PublishedModules.apidocs(module))) {
                Matcher link = SIBLING_LINK.matcher(PublishedModules.read(file));
                while (link.find()) {
                    String target = link.group(1);
                    linksByModule.merge(module + " -> " + target, 1, Integer::sum);
                    String problem = problem(target, link.group(2), link.group(3), link.group(4));
                    if (problem != null) {
                        broken.add(PublishedModules.apidocs(module).relativize(file) + ": " + link.group() + ": "
                                + problem);
                    }
                }
            }
        }

        assertThat(broken).as("links to the javadoc of a module").isEmpty();
        assertThat(linksByModule).as("links between the modules' javadoc").containsKeys("purgatory -> timer-core",
                "purgatory-micrometer -> purgatory", "purgatory-kafka -> purgatory");
        if (generatedModules().contains("purgatory-spring-boot-starter")) { // not a dependency of examples
            assertThat(linksByModule).containsKeys("purgatory-spring-boot-starter -> purgatory",
                    "purgatory-spring-boot-starter -> purgatory-micrometer");
        }
    }

    /** Why a link to {@code artifact}'s javadoc would not resolve, or null. */
    private static String problem(String artifact, String linkVersion, String path, String anchor) {
        if (!linkVersion.equals(version)) {
            return "version " + linkVersion + ", not " + version;
        }
        if (!PublishedModules.names().contains(artifact)) {
            return artifact + " publishes no javadoc";
        }
        Path page = PublishedModules.apidocs(artifact).resolve(path);
        if (!Files.isRegularFile(page)) {
            return "no page " + page;
        }
        if (anchor != null) {
            String id = URLDecoder.decode(anchor, StandardCharsets.UTF_8).replace("&", "&amp;").replace("<", "&lt;")
                    .replace(">", "&gt;");
            if (!PublishedModules.read(page).contains(" id=\"" + id + "\"")) {
                return "no anchor " + id + " in " + page;
            }
        }
        return null;
    }

    /** The published modules whose javadoc the reactor has generated (examples' dependencies at least). */
    private static List<String> generatedModules() {
        List<String> modules = PublishedModules.names().stream()
                .filter(m -> Files.isDirectory(PublishedModules.apidocs(m))).toList();
        assertThat(modules).contains("timer-core", "purgatory", "purgatory-micrometer", "purgatory-kafka");
        return modules;
    }

    private static List<Path> htmlFiles(Path apidocs) throws IOException {
        try (Stream<Path> files = Files.walk(apidocs)) {
            return files.filter(f -> f.toString().endsWith(".html")).sorted().toList();
        }
    }
}
