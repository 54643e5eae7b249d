package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code vthreads} command at a small size: virtual threads blocked in {@code join()} on keyed
 * waits, answered by {@code complete}, and no {@code jdk.VirtualThreadPinned} event in the measured
 * round (threshold 0). Runs where the JDK has virtual threads: the benchmarks module runs it again
 * on the machine's JDK 25 (its pom's {@code virtual-threads} profile); skipped on JDK 17. Checks
 * the count of pinned events and the table's shape, never a timing.
 */
class VirtualThreadWaitsTest {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES) // a hang guard, not a performance threshold
    void command_tenThousandVirtualThreads_noneIsPinnedAndEveryRowHasANumber() throws Exception {
        assumeTrue(VirtualThreadsWorkload.available(), "this JDK (" + Runtime.version() + ") has no virtual threads");
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        int exit;
        try (PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8);
             PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
            exit = VirtualThreadsWorkload.command(new String[] {"--waits", "10000", "--quick", "--impls", "ours"},
                    out, log);
        }
        String text = report.toString(StandardCharsets.UTF_8);

        assertEquals(0, exit, () -> progress.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("| " + VirtualThreadsWorkload.TITLE + " | " + VirtualThreadsWorkload.PINNED_EVENT
                + " events | 0 | "), () -> "pinned virtual threads, or no row for them, in\n" + text + "\n" + progress);
        assertTrue(text.matches("(?s).*\\| heap B/blocked wait, its virtual thread included \\| [1-9][0-9,]* \\|.*"),
                () -> "no heap per wait in\n" + text);
        assertTrue(text.contains("until all 10,000 ended (ms) | "), () -> "no answer time in\n" + text);
    }

    @Test
    void command_noVirtualThreads_saysSoAndFails() throws Exception {
        assumeTrue(!VirtualThreadsWorkload.available(), "this JDK has virtual threads");
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        try (PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
            assertEquals(2, VirtualThreadsWorkload.command(new String[0], System.out, log));
        }
        assertTrue(progress.toString(StandardCharsets.UTF_8).contains("has no virtual threads"));
    }
}
