package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;

/**
 * The maintainers' labels of invariants (I1, D3...) across every module's main sources, as the
 * style guide wants them: each defined once in the whole project, in an implementation-notes
 * comment, and every citation of one, `(K6)` or `(C2, C3)`, naming a label that is defined. A
 * label deleted with its definition must take its citations with it.
 */
class LabelsTest {

    private static final Path ROOT = Path.of("..");
    /** A definition: a comment line that starts with the label in parentheses. */
    private static final Pattern DEFINITION = Pattern.compile("^\\s*\\*?\\s*\\(([A-Z]{1,2}\\d{1,2})\\)\\s");
    /** A citation: one label or several, in parentheses. */
    private static final Pattern CITATION = Pattern.compile("\\(((?:[A-Z]{1,2}\\d{1,2})(?:, ?[A-Z]{1,2}\\d{1,2})*)\\)");
    private static final Pattern LABEL = Pattern.compile("[A-Z]{1,2}\\d{1,2}");

    @Test
    void labels_acrossEveryModulesMainSources_areDefinedOnceAndEveryCitationIsDefined() throws IOException {
        Map<String, List<String>> definitions = new TreeMap<>();
        List<Cited> citations = new ArrayList<>();
        for (Path file : mainSources()) {
            read(file, definitions, citations);
        }
        List<String> twice = new ArrayList<>();
        definitions.forEach((label, where) -> {
            if (where.size() > 1) {
                twice.add(label + " in " + where);
            }
        });
        List<String> dangling = new ArrayList<>();
        for (Cited cited : citations) {
            if (!definitions.containsKey(cited.label)) {
                dangling.add(cited.label + " at " + cited.where);
            }
        }
        System.out.println("LabelsTest: " + definitions.size() + " labels, " + citations.size() + " citations");
        assertThat(definitions).as("labels found").hasSizeGreaterThan(40);
        assertThat(twice).as("labels defined in more than one place").isEmpty();
        assertThat(dangling).as("citations of labels defined nowhere").isEmpty();
    }

    @Test
    void checker_labelDefinedTwiceAndACitationOfNothing_reportsBoth() {
        Map<String, List<String>> definitions = new TreeMap<>();
        List<Cited> citations = new ArrayList<>();
        scan("A.java", List.of("/*", " * (Z1) one rule", " */", "x(); // (Z1, Z9)"), definitions, citations);
        scan("B.java", List.of("/*", " * (Z1) the same label", " */"), definitions, citations);

        assertThat(definitions.get("Z1")).containsExactly("A.java:2", "B.java:2");
        assertThat(citations).extracting(c -> c.label).containsExactly("Z1", "Z9");
    }

    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .sorted()
                    .toList();
        }
    }

    private static void read(Path file, Map<String, List<String>> definitions, List<Cited> citations) {
        try {
            scan(ROOT.relativize(file).toString(), Files.readAllLines(file), definitions, citations);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void scan(String name, List<String> lines, Map<String, List<String>> definitions,
                             List<Cited> citations) {
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String where = name + ":" + (i + 1);
            Matcher definition = DEFINITION.matcher(line);
            if (definition.find()) {
                definitions.computeIfAbsent(definition.group(1), l -> new ArrayList<>()).add(where);
                continue;
            }
            Matcher citation = CITATION.matcher(line);
            while (citation.find()) {
                Matcher label = LABEL.matcher(citation.group(1));
                while (label.find()) {
                    citations.add(new Cited(label.group(), where));
                }
            }
        }
    }

    private record Cited(String label, String where) {
    }
}
