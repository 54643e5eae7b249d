package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every link in README.md and in the pages of docs/ resolves inside the repository: a relative
 * path to a file or directory that exists, and a {@code #fragment} to a heading of the file it
 * names (GitHub's anchors). A link to anywhere else (http, https, mailto; a bare URL, which GitHub
 * turns into a link) fails.
 * Fenced code blocks and code spans are not text: a URL there is not a link.
 */
class ReadmeLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");
    private static final Pattern INLINE_LINK = Pattern.compile("\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION =
            Pattern.compile("(?m)^ {0,3}\\[[^\\]\\n]+\\]:[ \\t]*<?(\\S+?)>?[ \\t]*$");
    private static final Pattern ABSOLUTE = Pattern.compile("(?i)\\b(?:https?://|ftp://|mailto:|www\\.)\\S+");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*\\s*$");

    @Test
    void readme_everyLink_resolvesInsideTheRepository() throws IOException {
        List<String> problems = new ArrayList<>();
        int links = check(ROOT.resolve("README.md"), ROOT, problems);

        assertThat(links).as("links found in README.md").isGreaterThan(0);
        assertThat(problems).as("links in README.md that do not resolve inside the repository").isEmpty();
    }

    @Test
    void docs_everyLink_resolvesInsideTheRepository() throws IOException {
        List<String> problems = new ArrayList<>();
        List<Path> pages;
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            pages = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        }
        for (Path page : pages) {
            List<String> found = new ArrayList<>();
            check(page, ROOT, found);
            found.forEach(problem -> problems.add(page.getFileName() + ": " + problem));
        }

        assertThat(pages).as("pages in docs/").isNotEmpty();
        assertThat(problems).as("links in docs/ that do not resolve inside the repository").isEmpty();
    }

    @Test
    void checker_linksOutsideOrMissing_reportsEachOne(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("other.md"), "# Other file\n\n## Its section\n");
        Files.createDirectory(dir.resolve("sub"));
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, """
                # Title

                ## Use it, now!

                [ok](other.md) [ok](other.md#its-section) [ok](sub) [ok](#use-it-now) [ok][ref]
                [gone](missing.md) [bad anchor](other.md#nowhere) [web](https://example.org/x)
                a bare https://example.org/bare and <http://example.org/auto>, `https://in.code/span`

                ```sh
                curl https://in.a/fence
                ```

                [ref]: other.md
                [web ref]: http://example.org/ref
                """);
        List<String> problems = new ArrayList<>();

        int links = check(readme, dir, problems);

        assertThat(links).isEqualTo(11);
        assertThat(problems).containsExactlyInAnyOrder(
                "missing.md (no such file)", "other.md#nowhere (no such heading)",
                "https://example.org/x (outside the repository)", "https://example.org/bare (outside the repository)",
                "http://example.org/auto (outside the repository)", "http://example.org/ref (outside the repository)");
    }

    /**
     * Checks the links of {@code file}, a page of the repository at {@code root}; adds a line per bad
     * link to {@code problems}; returns how many it checked.
     */
    private static int check(Path file, Path root, List<String> problems) throws IOException {
        String text = CODE_SPAN.matcher(FENCE.matcher(Files.readString(file)).replaceAll("")).replaceAll("");
        List<String> targets = new ArrayList<>();
        for (Pattern link : List.of(INLINE_LINK, REFERENCE_DEFINITION)) {
            Matcher m = link.matcher(text);
            while (m.find()) {
                targets.add(m.group(1));
            }
            text = link.matcher(text).replaceAll(" ");
        }
        Matcher bare = ABSOLUTE.matcher(text);
        while (bare.find()) {
            targets.add(bare.group().replaceAll("[>.,;:)]+$", ""));
        }
        for (String target : targets) {
            String problem = problem(file, root, target);
            if (problem != null) {
                problems.add(target + " (" + problem + ")");
            }
        }
        return targets.size();
    }

    private static String problem(Path from, Path root, String target) throws IOException {
        if (target.isEmpty() || ABSOLUTE.matcher(target).lookingAt() || target.startsWith("//")) {
            return "outside the repository";
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        Path resolved = path.isEmpty() ? from : from.getParent().resolve(path).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (!resolved.toRealPath().startsWith(root.toRealPath())) {
            return "outside the repository";
        }
        if (hash >= 0 && !(Files.isRegularFile(resolved) && anchors(resolved).contains(target.substring(hash + 1)))) {
            return "no such heading";
        }
        return null;
    }

    /** GitHub's anchors for the headings of a markdown file: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path markdown) throws IOException {
        String text = FENCE.matcher(Files.readString(markdown)).replaceAll("");
        return HEADING.matcher(text).results()
                .map(h -> h.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'))
                .collect(Collectors.toSet());
    }
}
