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
 * The code blocks of README.md and of the docs pages that follow a {@code <!-- file: path -->}
 * marker are the files they name, character for character, and the line counts they give are
 * theirs: the docs cannot drift from code that compiles and is tested. So are the README's count
 * of artifacts (the BOM's) and docs/testing.md's count of jcstress tests.
 */
class ReadmeCodeTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern BLOCK = Pattern.compile("<!-- file: (\\S+) -->\n```java\n(.*?)```\n", Pattern.DOTALL);
    /** Each page checked, and the files its marked blocks copy: no more, no fewer. */
    private static final Map<String, List<String>> PAGES = pages();

    private static Map<String, List<String>> pages() {
        Map<String, List<String>> pages = new LinkedHashMap<>();
        pages.put("README.md", List.of());
        pages.put("docs/keyed-waits.md", List.of(
                "examples/src/main/java/io/purgatory/examples/LongPollServer.java",
                "examples/src/test/java/io/purgatory/examples/LongPollServerTest.java",
                "examples/src/main/java/io/purgatory/examples/PlainJdkLongPollServer.java"));
        pages.put("docs/spring-boot.md", List.of(
                "examples-spring/src/main/java/io/purgatory/examples/spring/OrderPaymentsApplication.java",
                "examples-spring/src/main/java/io/purgatory/examples/spring/OrderController.java",
                "examples-spring/src/main/java/io/purgatory/examples/spring/PaymentListener.java"));
        return pages;
    }

    @Test
    void docs_codeBlocksAfterAFileMarker_areThatFileVerbatim() throws IOException {
        for (Map.Entry<String, List<String>> page : PAGES.entrySet()) {
            Map<String, String> blocks = blocks(Files.readString(ROOT.resolve(page.getKey())));

            assertThat(blocks.keySet()).as("the files %s copies", page.getKey())
                    .containsExactlyInAnyOrderElementsOf(page.getValue());
            for (Map.Entry<String, String> e : blocks.entrySet()) {
                assertThat(e.getValue()).as("%s's copy of %s (copy the file into it)", page.getKey(), e.getKey())
                        .isEqualTo(Files.readString(ROOT.resolve(e.getKey())));
            }
        }
    }

    @Test
    void blocks_aMarkedBlockThatDiffers_isFoundSoItCanFail() {
        Map<String, String> blocks = blocks("text\n<!-- file: a/B.java -->\n```java\nclass B {}\n```\nmore\n");

        assertThat(blocks).containsExactly(Map.entry("a/B.java", "class B {}\n"));
    }

    private static Map<String, String> blocks(String page) {
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher block = BLOCK.matcher(page);
        while (block.find()) {
            blocks.put(block.group(1), block.group(2));
        }
        return blocks;
    }

    @Test
    void readme_countsOfArtifactsAndJcstressTests_areTheRepositorys() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String bom = Files.readString(ROOT.resolve("purgatory-bom/pom.xml"));
        String managed = bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>"));
        List<String> artifacts = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(managed).results()
                .map(m -> m.group(1)).toList();
        String testing = Files.readString(ROOT.resolve("docs/testing.md"));
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
        assertThat(testing).contains("(" + jcstressTests + " tests, each in two JVM configurations on JDK 17");
    }

    private static long jcstressTests(Path source) {
        try {
            return Pattern.compile("@JCStressTest\\b").matcher(Files.readString(source)).results().count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void keyedWaitsPage_lineCountsOfTheTwoServers_areTheFiles() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/keyed-waits.md"));
        Path dir = ROOT.resolve("examples/src/main/java/io/purgatory/examples");
        for (String server : List.of("LongPollServer.java", "PlainJdkLongPollServer.java")) {
            long lines = Files.readAllLines(dir.resolve(server)).size();
            assertThat(page).contains(server + ", " + lines + " lines");
        }
    }
}
