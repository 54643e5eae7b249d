package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --background-load}: the child JVM burns CPU while the run lasts, and is gone when the run
 * ends, when it is closed, or when its parent's end closes its stdin. The bounds are hang guards,
 * never performance thresholds.
 */
class BackgroundLoadTest {

    private static final Pattern CHILD_PID = Pattern.compile("child JVM (\\d+)");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void start_oneThread_childBurnsCpuUntilClosed() throws Exception {
        ProcessHandle child;
        try (BackgroundLoad load = BackgroundLoad.start(1, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))) {
            child = ProcessHandle.of(load.pid()).orElseThrow();
            assertEquals(1, load.threads());
            while (child.info().totalCpuDuration().orElse(Duration.ZERO).compareTo(Duration.ofSeconds(2)) < 0) {
                assertTrue(load.isAlive(), "the background JVM ended by itself");
                Thread.sleep(50);
            }
        }
        assertFalse(child.isAlive(), "still running after close: " + child.pid());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void child_stdinClosed_exitsByItself() throws Exception {
        try (BackgroundLoad load = BackgroundLoad.start(1, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))) {
            ProcessHandle child = ProcessHandle.of(load.pid()).orElseThrow();
            load.closeStdin(); // what the parent's death does
            assertEquals(0, child.onExit().thenApply(p -> 0).get(30, TimeUnit.SECONDS));
            assertFalse(load.isAlive());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void start_ownSession_childRunsInAnotherSessionUntilClosed() throws Exception {
        ProcessHandle child;
        try (BackgroundLoad load = BackgroundLoad.start(1, true, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))) {
            child = ProcessHandle.of(load.pid()).orElseThrow();
            while (!ProcessHandle.of(load.pid()).flatMap(p -> p.info().command()).orElse("").endsWith("java")) {
                assertTrue(load.isAlive(), "setsid ended: it forked instead of running the JVM itself");
                Thread.sleep(10); // until setsid has run the JVM in its place
            }
            assertNotEquals(session(ProcessHandle.current().pid()), session(child.pid()));
            while (child.info().totalCpuDuration().orElse(Duration.ZERO).compareTo(Duration.ofSeconds(1)) < 0) {
                assertTrue(load.isAlive(), "the background JVM ended by itself");
                Thread.sleep(50);
            }
        }
        assertFalse(child.isAlive(), "still running after close: " + child.pid());
    }

    /** The session id of a process: field 6 of /proc/pid/stat, after the command's parentheses. */
    private static String session(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3];
    }

    @Test
    void start_zeroThreads_startsNothing() throws Exception {
        BackgroundLoad load = BackgroundLoad.start(0, System.err);
        assertEquals(-1, load.pid());
        assertFalse(load.isAlive());
        load.close();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // a hang guard
    void compare_withBackgroundLoad_reportsItAndStopsItsJvmAtTheEnd() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        String report;
        try (PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
            report = Compare.run(CompareOptions.parse("--quick", "--only", "churn", "--impls", "ours",
                    "--background-load", "1"), log);
        }
        String logged = progress.toString(StandardCharsets.UTF_8);
        Matcher pid = CHILD_PID.matcher(logged);
        assertTrue(pid.find(), () -> "no background JVM logged in\n" + logged);
        assertFalse(ProcessHandle.of(Long.parseLong(pid.group(1))).map(ProcessHandle::isAlive).orElse(false),
                "the background JVM outlived the run");
        assertTrue(report.contains("Background load (--background-load): 1 busy thread(s)"), report);
        assertTrue(logged.matches("(?s).*round 1/1 ours, load [0-9.?]+.*round 1/1 done, load [0-9.?]+.*"), logged);
    }
}
