package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code feed-rate --quick} end to end: a broker, two feeds, two plain consumers, every row with a
 * number for the feed and, where the row has one, for the plain consumers. Tagged slow (a broker's
 * start, about half a minute): {@code mvn -B -ntp verify -Pslow -pl benchmarks -am}. Checks the
 * table's shape, never a figure.
 */
@Tag("slow")
class FeedRateSmokeTest {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // a hang guard, not a performance threshold
    void quickRun_twoFeedsAndPlainConsumers_printRowsWithNumbers() throws Exception {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        int exit;
        try (PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8);
             PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
            exit = FeedRateCommand.run(new String[] {"--quick"}, out, log);
        }
        String text = report.toString(StandardCharsets.UTF_8);

        assertEquals(0, exit, () -> progress.toString(StandardCharsets.UTF_8));
        for (String rate : new String[] {"200/s: ", "1,000/s: "}) {
            for (String row : new String[] {"events/s answered", "publish to answer p99", "send to ack p50",
                    "append to poll's return (1 ms) p99", "hand-off to answer p50", "producer record-queue-time-avg"}) {
                String prefix = "| " + FeedRateWorkload.TITLE + " | " + rate + row;
                assertTrue(text.lines().anyMatch(l -> l.startsWith(prefix) && l.matches(".*\\(ms\\) \\| [0-9].*|.*"
                        + "plain consumers\\) \\| [0-9].*")), () -> "no number for '" + rate + row + "' in\n" + text);
            }
        }
    }
}
