package io.purgatory.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the module's jcstress suite from its shaded jar in a separate JVM (jcstress forks its own
 * test VMs) and fails the build unless every test ran and none saw a FORBIDDEN outcome or an
 * error. jcstress itself exits 0 when it ran nothing, so this also checks that each test listed
 * in the jar's {@code META-INF/TestList} reported {@code [OK]}.
 *
 * <p>System properties (set from Maven properties of the same name, see the pom):
 * {@code jcstress.mode} is {@code ci} (two VM configurations, one fork, one 200 ms iteration per
 * test: 2 to 3.5 min on 2 cores, the machine probe included) or a jcstress preset
 * ({@code sanity}, {@code quick}, {@code default}, {@code tough}); {@code jcstress.tests} a regex of tests;
 * {@code jcstress.timeoutMinutes} the bound on the whole run (a failure bound, not a timing check);
 * {@code jcstress.jvm} the {@code java} that runs jcstress and its test VMs (from the environment's
 * {@code JCSTRESS_JVM}, which CI sets to its JDK 25: there jcstress finds one VM configuration, where
 * on JDK 17 it runs each test twice, with biased locking on and off, though 17 has it off by default
 * and 18 removed it), else the JVM running this test.
 */
class JcstressSuiteIT {

    private static final List<String> CI_ARGS =
            List.of("-jvmArgs", "-XX:+UseG1GC", "-sc", "false", "-f", "1", "-iters", "1", "-time", "200");
    private static final Pattern RESULTS = Pattern.compile(
            "Results: (\\d+) planned; (\\d+) passed, (\\d+) failed, (\\d+) soft errs, (\\d+) hard errs");
    /** A test's verdict as jcstress prints it while the run goes on: {@code .......... [OK] a.b.Test}. */
    private static final Pattern VERDICT = Pattern.compile("^\\.+ \\[([A-Z_ ]+)\\] (\\S+)$");
    /** Printed after the last test, before the summary that repeats every verdict. */
    private static final String SUMMARY = "RUN RESULTS:";
    /** A line at least this often while jcstress prints no verdict. */
    private static final long HEARTBEAT_SECONDS = 15;

    /** The {@code java} to run jcstress with: {@code jcstress.jvm} if set (Maven leaves an unset one unresolved). */
    private static String jvm() {
        String given = System.getProperty("jcstress.jvm", "");
        if (!given.isBlank() && !given.startsWith("${")) {
            assertThat(Paths.get(given)).as("jcstress.jvm (JCSTRESS_JVM) names a java").isExecutable();
            return given;
        }
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Test
    void jcstressSuite_run_everyTestPassesWithNoForbiddenOutcome() throws Exception {
        Path jar = Paths.get(System.getProperty("jcstress.jar", "target/jcstress.jar"));
        assertThat(jar).as("the shaded jcstress jar (built in the package phase)").exists();
        Path resultsDir = Paths.get(System.getProperty("jcstress.results", "target/jcstress-results"));
        Files.createDirectories(resultsDir);
        Path output = resultsDir.resolve("output.txt");
        String mode = System.getProperty("jcstress.mode", "ci");
        String tests = System.getProperty("jcstress.tests", ".*");
        long timeoutMinutes = Long.getLong("jcstress.timeoutMinutes", 10);

        List<String> command = new ArrayList<>(List.of(
                jvm(),
                "-jar", jar.toString(), "-v", "-r", resultsDir.toString(), "-t", tests));
        if (mode.equals("ci")) {
            command.addAll(CI_ARGS);
        } else {
            command.addAll(List.of("-m", mode));
        }
        Progress progress = new Progress(System.nanoTime());
        progress.print("running the tests matching '" + tests + "' in mode " + mode + " on " + command.get(0)
                + " (it probes the machine first); full output in " + output);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread copier = new Thread(() -> progress.copy(process.getInputStream(), output), "jcstress-output");
        copier.setDaemon(true);
        copier.start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(timeoutMinutes);
        while (!process.waitFor(HEARTBEAT_SECONDS, TimeUnit.SECONDS)) {
            if (System.nanoTime() - deadline > 0) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                fail("jcstress did not finish within " + timeoutMinutes + " min; output in " + output);
            }
            progress.heartbeat();
        }
        copier.join(TimeUnit.SECONDS.toMillis(HEARTBEAT_SECONDS));
        assertThat(copier.isAlive()).as("the copy of jcstress's output ended with the process").isFalse();
        progress.print("finished; jcstress exited with " + process.exitValue());
        String log = Files.readString(output, StandardCharsets.UTF_8);

        assertThat(process.exitValue())
                .as("jcstress exit code (non-zero on FORBIDDEN outcomes or errors); output in %s:%n%s",
                        output, tail(log))
                .isZero();
        assertThat(log).as("output in %s", output)
                .contains("Failed tests: No matches.")
                .contains("Error tests: No matches.");
        Matcher results = RESULTS.matcher(log);
        String last = null;
        while (results.find()) {
            last = results.group();
        }
        assertThat(last).as("jcstress's final tally; output in %s:%n%s", output, tail(log)).isNotNull();
        Matcher tally = RESULTS.matcher(last);
        assertThat(tally.find()).isTrue();
        assertThat(Long.parseLong(tally.group(1))).as("results planned").isPositive();
        assertThat(tally.group(2)).as("passed = planned: %s", last).isEqualTo(tally.group(1));
        assertThat(Arrays.asList(tally.group(3), tally.group(4), tally.group(5)))
                .as("failed, soft and hard errors: %s", last).containsOnly("0");
        for (String test : testsInJar(tests)) {
            assertThat(log).as("test %s ran and passed; output in %s", test, output)
                    .contains("[OK] " + test);
        }
    }

    /** The jcstress tests compiled into this module (its META-INF/TestList) that match {@code regex}. */
    private static List<String> testsInJar(String regex) throws IOException {
        List<String> names = new ArrayList<>();
        try (InputStream in = JcstressSuiteIT.class.getResourceAsStream("/META-INF/TestList")) {
            assertThat(in).as("META-INF/TestList, written by jcstress's annotation processor").isNotNull();
            Pattern entry = Pattern.compile("^JCTEST(\\d+)S");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                Matcher m = entry.matcher(line);
                if (m.find()) {
                    int length = Integer.parseInt(m.group(1));
                    String name = line.substring(m.end(), m.end() + length);
                    if (Pattern.compile(regex).matcher(name).find()) {
                        names.add(name);
                    }
                }
            }
        }
        assertThat(names).as("jcstress tests matching %s", regex).isNotEmpty();
        return names;
    }

    /**
     * Copies jcstress's output to a file and prints one line per verdict (each test in each VM
     * configuration), with the running tally, so a long run shows that it moves; {@link #heartbeat}
     * adds a line when nothing was printed for a while (the machine probe, a slow test).
     */
    private static final class Progress {
        private final long startNanos;
        private final AtomicLong lastPrintNanos;
        private volatile String lastVerdict = "";

        Progress(long startNanos) {
            this.startNanos = startNanos;
            this.lastPrintNanos = new AtomicLong(startNanos);
        }

        void copy(InputStream in, Path output) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                 BufferedWriter writer = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                boolean summary = false;
                String verdict = null;
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    writer.write(line);
                    writer.newLine();
                    writer.flush();
                    summary |= line.startsWith(SUMMARY);
                    Matcher v = VERDICT.matcher(line);
                    if (!summary && v.find()) {
                        verdict = "[" + v.group(1) + "] " + v.group(2);
                        lastVerdict = verdict;
                    }
                    Matcher tally = RESULTS.matcher(line);
                    if (!summary && verdict != null && tally.find()) {
                        print(String.format(Locale.ROOT, "%2d/%s %s (%s failed, %s soft and %s hard errors so far)",
                                Long.parseLong(tally.group(2)) + Long.parseLong(tally.group(3)), tally.group(1),
                                verdict, tally.group(3), tally.group(4), tally.group(5)));
                        verdict = null;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("copying jcstress's output to " + output, e);
            }
        }

        void heartbeat() {
            if (System.nanoTime() - lastPrintNanos.get() >= TimeUnit.SECONDS.toNanos(HEARTBEAT_SECONDS)) {
                print(lastVerdict.isEmpty() ? "still running" : "still running; last verdict " + lastVerdict);
            }
        }

        void print(String message) {
            long now = System.nanoTime();
            lastPrintNanos.set(now);
            System.out.printf(Locale.ROOT, "jcstress %4d s: %s%n", TimeUnit.NANOSECONDS.toSeconds(now - startNanos),
                    message);
            System.out.flush();
        }
    }

    private static String tail(String log) {
        return log.length() <= 6000 ? log : log.substring(log.length() - 6000);
    }
}
