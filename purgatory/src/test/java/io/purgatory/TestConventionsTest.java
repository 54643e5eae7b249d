package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tests of every module read one way: each test method (JUnit's Test, ParameterizedTest,
 * TestFactory, RepeatedTest) is named method_condition_expectation, at least three lowerCamelCase
 * parts separated by single underscores; and each test source is named for the behaviour it
 * tests, never for where a defect came from (Defect, Seam, Issue, Adversarial, Probe, Regression,
 * Round, Bug). Reads the sources of every module's src/test/java as text; timer-core's are left
 * out until their last four sentence-style names are renamed.
 */
class TestConventionsTest {

    private static final Path ROOT = Path.of("..");
    /** Modules whose tests are not checked yet. */
    private static final Set<String> NOT_CHECKED = Set.of("timer-core");
    private static final Pattern CONVENTION = Pattern.compile("[a-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+){2,}");
    /** Words of a class name that say where a test came from rather than what it tests. */
    private static final Set<String> ORIGIN_WORDS = Set.of("Defect", "Seam", "Issue", "Adversarial", "Probe",
            "Regression", "Round", "Bug");
    /** An annotation's arguments, string literals already removed: parentheses nest one level. */
    private static final String ARGUMENTS = "\\((?:[^()]|\\([^()]*\\))*\\)";
    /** A test annotation, any annotations after it, the modifiers and the return type, then the name. */
    private static final Pattern TEST_METHOD = Pattern.compile("@(?:Test|ParameterizedTest|TestFactory|RepeatedTest)"
            + "\\b(?:\\s*" + ARGUMENTS + ")?(?:\\s*@[\\w.]+(?:\\s*" + ARGUMENTS + ")?)*\\s*"
            + "(?:(?:public|protected|private|static|final|synchronized)\\s+)*"
            + "(?:<[^>]*>\\s*)?[\\w.<>\\[\\],? ]+?\\s+(\\w+)\\s*\\(");
    /** What is not code, found from the left: text blocks, comments, string and char literals. */
    private static final Pattern NOT_CODE = Pattern.compile("\"\"\"[\\s\\S]*?\"\"\"|/\\*[\\s\\S]*?\\*/|//[^\\n]*"
            + "|\"(?:[^\"\\\\\\n]|\\\\.)*\"|'(?:[^'\\\\\\n]|\\\\.)'");
    private static final Pattern WORD = Pattern.compile("[A-Z][a-z0-9]*|[a-z0-9]+");

    @Test
    void testMethods_everyCheckedModule_areNamedMethodConditionExpectation() {
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        for (Path source : testSources()) {
            List<String> names = testMethodNames(read(source));
            checked += names.size();
            for (String name : names) {
                if (!CONVENTION.matcher(name).matches()) {
                    offenders.add(ROOT.relativize(source) + ": " + name);
                }
            }
        }
        System.out.println("TestConventionsTest: " + checked + " test methods checked");
        assertThat(checked).as("test methods found").isGreaterThan(600);
        assertThat(offenders).as("test methods not named method_condition_expectation").isEmpty();
    }

    @Test
    void testClasses_everyCheckedModule_areNamedForWhatTheyTest() {
        List<String> offenders = new ArrayList<>();
        for (Path source : testSources()) {
            String name = source.getFileName().toString().replace(".java", "");
            if (namesAnOrigin(name)) {
                offenders.add(ROOT.relativize(source).toString());
            }
        }
        assertThat(offenders).as("test classes named for where a defect came from, not for what they test")
                .isEmpty();
    }

    @Test
    void checker_badNamesAndOriginNamedClasses_reportsEachOne() {
        String source = """
                class Sample {
                    @Test
                    void aNullValueIsAValue() {}
                    @ParameterizedTest(name = "{0} (x)")
                    @CsvSource({"A,true", "B,false"})
                    void close_twoParts(String a, boolean b) {}
                    @TestFactory
                    Stream<DynamicTest> matrix_everyCell_holds() { return null; }
                    @Test @Timeout(5) public void complete_keyWithAWait_answersIt() throws Exception {}
                    /* @Test void commentedOut() {} */
                    // @Test void lineCommentedOut() {}
                    String s = "@Test void inAString() {}";
                    @RepeatedTest(3)
                    void repeated_fourParts_areFine_too() {}
                    void helper_notATest_isIgnored() {}
                }
                """;

        List<String> names = testMethodNames(source);

        assertThat(names).containsExactly("aNullValueIsAValue", "close_twoParts", "matrix_everyCell_holds",
                "complete_keyWithAWait_answersIt", "repeated_fourParts_areFine_too");
        assertThat(names).filteredOn(n -> !CONVENTION.matcher(n).matches())
                .containsExactly("aNullValueIsAValue", "close_twoParts");
        assertThat(List.of("SeamDefectsTest", "AdversarialProbesTest", "Issue22Test", "ThirdRoundTest",
                "BugFixTest", "SelfCheckTest", "RoundingTest", "KeyReentryTest"))
                .filteredOn(TestConventionsTest::namesAnOrigin)
                .containsExactly("SeamDefectsTest", "AdversarialProbesTest", "Issue22Test", "ThirdRoundTest",
                        "BugFixTest");
    }

    /** The names of the test methods in {@code source}, in order; comments and literals are skipped. */
    static List<String> testMethodNames(String source) {
        String code = NOT_CODE.matcher(source).replaceAll(" ");
        List<String> names = new ArrayList<>();
        Matcher m = TEST_METHOD.matcher(code);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** Whether one of the words of {@code className} (split at its capitals) says where a test came from. */
    static boolean namesAnOrigin(String className) {
        Matcher words = WORD.matcher(className);
        while (words.find()) {
            String word = words.group();
            if (ORIGIN_WORDS.contains(word.replaceAll("\\d+$", ""))) {
                return true;
            }
        }
        return false;
    }

    /** Every .java file under a checked module's src/test/java, sorted. */
    private static List<Path> testSources() {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.sorted().toList()) {
                Path tests = module.resolve("src/test/java");
                if (!Files.isDirectory(tests) || NOT_CHECKED.contains(module.getFileName().toString())) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(tests)) {
                    files.filter(f -> f.toString().endsWith(".java")).sorted().forEach(sources::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(sources).as("test sources found under %s", ROOT.toAbsolutePath().normalize()).isNotEmpty();
        return sources;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
