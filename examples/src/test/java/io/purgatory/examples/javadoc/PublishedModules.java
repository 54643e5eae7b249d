package io.purgatory.examples.javadoc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The modules that publish javadoc (those whose pom runs the javadoc plugin), read from the
 * repository's files: their packages' public top-level types and class comments, and where their
 * generated javadoc is. The tests run in examples/, so the repository is "..".
 */
final class PublishedModules {

    static final Path ROOT = Path.of("..");

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (?:(?:final|abstract|sealed|non-sealed|strictfp) )*"
                    + "(?:class|interface|enum|record|@interface) (\\w+)",
            Pattern.MULTILINE);

    private PublishedModules() {
    }

    /** The modules of the root pom, in its order, whose pom runs the javadoc plugin. */
    static List<String> names() {
        List<String> published = new ArrayList<>();
        Matcher module = MODULE.matcher(read(ROOT.resolve("pom.xml")));
        while (module.find()) {
            String name = module.group(1);
            if (read(ROOT.resolve(name).resolve("pom.xml")).contains("<artifactId>maven-javadoc-plugin</artifactId>")) {
                published.add(name);
            }
        }
        return published;
    }

    /** The module's package directories: those of src/main/java that hold a package-info.java. */
    static List<Path> packages(String module) {
        try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
            return files.filter(f -> f.getFileName().toString().equals("package-info.java")).map(Path::getParent)
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The public top-level types of a package directory, by simple name, with their source. */
    static Map<String, String> publicTypes(Path packageDir) {
        Map<String, String> types = new TreeMap<>();
        try (Stream<Path> files = Files.list(packageDir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String source = read(file);
                Matcher type = PUBLIC_TYPE.matcher(source);
                if (type.find()) {
                    types.put(type.group(1), source);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return types;
    }

    /** The comment before the top-level type declaration (and its annotations), "" if it has none. */
    static String classComment(String source) {
        Matcher type = PUBLIC_TYPE.matcher(source);
        if (!type.find()) {
            throw new IllegalArgumentException("no public top-level type in this source");
        }
        String before = source.substring(0, type.start());
        int start = before.lastIndexOf("/**");
        int end = before.lastIndexOf("*/");
        boolean annotationsOnly = end > start && !before.substring(end + 2).contains(";");
        return start >= 0 && annotationsOnly ? before.substring(start, end + 2) : "";
    }

    /** Where the module's javadoc is generated (the javadoc plugin's jar goal, in package). */
    static Path apidocs(String module) {
        return ROOT.resolve(module).resolve("target/reports/apidocs");
    }

    /**
     * Skips a test of the generated javadoc when there is none: the javadoc plugin runs in the
     * package phase, so "mvn test" generates none. In CI (CI=true), which runs "mvn verify", fails.
     */
    static void assumeJavadocGenerated() {
        boolean generated = Files.isRegularFile(apidocs("purgatory").resolve("element-list"));
        String message = "no generated javadoc in " + apidocs("purgatory") + ": the reactor generates it in the package"
                + " phase (mvn -B -ntp verify, or -pl examples -am verify)";
        if (!"true".equalsIgnoreCase(System.getenv("CI"))) {
            assumeTrue(generated, message);
        }
        assertThat(generated).as(message).isTrue();
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
