package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/reliability.md names tests and methods as evidence; every name it gives must exist. Checks
 * `Class#method` (and the shorthand `#method` after it in the same table row, paragraph or list
 * item; a trailing `*` makes the name a prefix), backticked `Class.member` of a class of this
 * project (a method, or a nested type or constant), and jcstress `Class` (a class of
 * concurrency-tests). Names are found by a text search of the sources.
 */
class ReliabilityDocTest {

    private static final Path ROOT = Path.of("..");
    /** `Class#method`, or a backticked `#method` that refers to the last class named before it (logical line). */
    private static final Pattern TEST_REF = Pattern.compile("(?:\\b([A-Z]\\w*)|(?<=`))#([a-zA-Z_]\\w*)(\\*?)");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
    /** Inside a code span: `Class.member`, or `.member` continuing the last project class named before it. */
    private static final Pattern MEMBER_REF = Pattern.compile("(?:\\b([A-Z]\\w*)|^)\\.([A-Za-z_]\\w*)");
    private static final Pattern NEW_ITEM = Pattern.compile("\\s*(?:[-*]|\\d+\\.)\\s");
    private static final Pattern JCSTRESS_REF = Pattern.compile("jcstress `([A-Z]\\w*)");

    @Test
    void reliabilityDoc_everyTestClassMethodAndJcstressTestItNames_exists() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/reliability.md"));
        List<String> missing = new ArrayList<>();
        int checked = check(doc, sources(), missing);
        System.out.println("ReliabilityDocTest: " + checked + " references checked in docs/reliability.md");
        assertThat(checked).as("references found").isGreaterThan(100);
        assertThat(missing).as("names in docs/reliability.md with no match in the sources").isEmpty();
    }

    @Test
    void checker_bogusReferences_reportsEachOne() {
        String doc = """
                | x | `NoSuchTest#nothing`, `#nothingEither` | `FaultExecutorTest#noSuchMethod` |
                `DelayedOperation.noSuchMethod()`, `OperationState.settle`, jcstress `NoSuchRace`
                `FaultExecutorTest#expirationExecutor_*` and `Timer.MAX_DELAY_MS` exist
                1. `FaultReaperTest#reaper_timerClosedUnderIt_warnsStopsAndTheOperationsAreStillSettled`, wrapped:
                   `#noSuchReaperTest`
                """;
        List<String> missing = new ArrayList<>();
        int checked = check(doc, sources(), missing);
        assertThat(checked).isEqualTo(10);
        assertThat(missing).containsExactly("NoSuchTest#nothing (no such class)",
                "NoSuchTest#nothingEither (no such class)", "FaultExecutorTest#noSuchMethod",
                "DelayedOperation.noSuchMethod", "jcstress NoSuchRace", "FaultReaperTest#noSuchReaperTest");
    }

    /** Checks every reference in {@code doc}, adds those not found to {@code missing}, returns how many it checked. */
    static int check(String doc, Sources sources, List<String> missing) {
        int checked = 0;
        for (String line : logicalLines(doc)) {
            String lastClass = null;
            Matcher m = TEST_REF.matcher(line);
            while (m.find()) {
                if (m.group(1) != null) {
                    lastClass = m.group(1);
                }
                String ref = lastClass + "#" + m.group(2) + m.group(3);
                checked++;
                List<String> texts = sources.all.get(lastClass);
                if (texts == null) {
                    missing.add(ref + " (no such class)");
                } else if (!containsMethod(texts, m.group(2), !m.group(3).isEmpty())) {
                    missing.add(ref);
                }
            }
            Matcher spans = CODE_SPAN.matcher(line);
            String lastMain = null;
            while (spans.find()) {
                Matcher r = MEMBER_REF.matcher(spans.group(1));
                while (r.find()) {
                    String owner = r.group(1) != null ? r.group(1) : lastMain;
                    if (owner == null || !sources.main.containsKey(owner)) {
                        continue; // not a class of this project (Long.MAX_VALUE, Thread.join...)
                    }
                    lastMain = owner;
                    String member = r.group(2);
                    checked++;
                    Pattern word = Pattern.compile("\\b" + member + "\\b"); // a nested type or a constant
                    boolean found = Character.isLowerCase(member.charAt(0))
                            ? containsMethod(sources.main.get(owner), member, false)
                            : sources.main.get(owner).stream().anyMatch(t -> word.matcher(t).find());
                    if (!found) {
                        missing.add(owner + "." + member);
                    }
                }
            }
            Matcher j = JCSTRESS_REF.matcher(line);
            while (j.find()) {
                checked++;
                if (!sources.jcstress.containsKey(j.group(1))) {
                    missing.add("jcstress " + j.group(1));
                }
            }
        }
        return checked;
    }

    /** Table rows and headings as they are; a wrapped paragraph or list item joined into one line. */
    static List<String> logicalLines(String doc) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : doc.split("\n")) {
            boolean continues = !line.isBlank() && !line.startsWith("|") && !line.startsWith("#")
                    && !NEW_ITEM.matcher(line).lookingAt() && !current.isEmpty() && current.charAt(0) != '|';
            if (!continues) {
                lines.add(current.toString());
                current.setLength(0);
            }
            current.append(current.isEmpty() ? "" : " ").append(line.strip());
        }
        lines.add(current.toString());
        return lines;
    }

    private static boolean containsMethod(List<String> texts, String name, boolean prefix) {
        Pattern p = Pattern.compile("\\b" + Pattern.quote(name) + (prefix ? "\\w*" : "") + "\\s*\\(");
        return texts.stream().anyMatch(t -> p.matcher(t).find());
    }

    /** The project's .java sources by simple class name: every module's src, its main part, concurrency-tests'. */
    record Sources(Map<String, List<String>> all, Map<String, List<String>> main, Map<String, List<String>> jcstress) {
    }

    private static Sources sources() {
        Sources s = new Sources(new HashMap<>(), new HashMap<>(), new HashMap<>());
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path src : modules.map(m -> m.resolve("src")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(src)) {
                    for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                        String name = f.getFileName().toString().replace(".java", "");
                        String text = Files.readString(f);
                        s.all.computeIfAbsent(name, k -> new ArrayList<>()).add(text);
                        if (src.relativize(f).startsWith("main")) {
                            s.main.computeIfAbsent(name, k -> new ArrayList<>()).add(text);
                        }
                        if (src.getParent().getFileName().toString().equals("concurrency-tests")) {
                            s.jcstress.computeIfAbsent(name, k -> new ArrayList<>()).add(text);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return s;
    }
}
