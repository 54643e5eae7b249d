package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's code blocks that follow a {@code <!-- file: path -->} marker are the files they
 * name, character for character, and the line counts it gives are theirs: the README cannot drift
 * from code that compiles and is tested. So are its counts of artifacts (the BOM's) and of
 * jcstress tests.
 */
class ReadmeCodeTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern BLOCK = Pattern.compile("<!-- file: (\\S+) -->\n```java\n(.*?)```\n", Pattern.DOTALL);

    @Test
    void readme_codeBlocksAfterAFileMarker_areThatFileVerbatim() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher block = BLOCK.matcher(readme);
        while (block.find()) {
            blocks.put(block.group(1), block.group(2));
        }

        assertThat(blocks).containsOnlyKeys(
                "examples/src/main/java/io/purgatory/examples/LongPollServer.java",
                "examples/src/test/java/io/purgatory/examples/LongPollServerTest.java",
                "examples/src/main/java/io/purgatory/examples/PlainJdkLongPollServer.java",
                "examples-spring/src/main/java/io/purgatory/examples/spring/OrderPaymentsApplication.java",
                "examples-spring/src/main/java/io/purgatory/examples/spring/OrderController.java",
                "examples-spring/src/main/java/io/purgatory/examples/spring/PaymentListener.java");
        for (Map.Entry<String, String> e : blocks.entrySet()) {
            assertThat(e.getValue()).as("README's copy of %s (copy the file into the README)", e.getKey())
                    .isEqualTo(Files.readString(ROOT.resolve(e.getKey())));
        }
    }

    @Test
    void readme_countsOfArtifactsAndJcstressTests_areTheRepositorys() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String bom = Files.readString(ROOT.resolve("purgatory-bom/pom.xml"));
        String managed = bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>"));
        List<String> artifacts = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(managed).results()
                .map(m -> m.group(1)).toList();
        String count = List.of("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
                .get(artifacts.size());
        long jcstressTests;
        try (Stream<Path> files = Files.walk(ROOT.resolve("concurrency-tests/src/main/java"))) {
            jcstressTests = files.filter(f -> f.toString().endsWith(".java")).mapToLong(ReadmeCodeTest::jcstressTests)
                    .sum();
        }

        assertThat(readme).contains(Character.toUpperCase(count.charAt(0)) + count.substring(1)
                + " artifacts under the group", "the versions of all " + count + ", to import");
        for (String artifact : artifacts) {
            assertThat(readme).contains("| `" + artifact + "` |");
        }
        assertThat(readme).contains("(" + jcstressTests + " tests, each in two JVM configurations)");
    }

    private static long jcstressTests(Path source) {
        try {
            return Pattern.compile("@JCStressTest\\b").matcher(Files.readString(source)).results().count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void readme_lineCountsOfTheTwoServers_areTheFiles() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Path dir = ROOT.resolve("examples/src/main/java/io/purgatory/examples");
        for (String server : List.of("LongPollServer.java", "PlainJdkLongPollServer.java")) {
            long lines = Files.readAllLines(dir.resolve(server)).size();
            assertThat(readme).contains(server + ", " + lines + " lines");
        }
    }
}
