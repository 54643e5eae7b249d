package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CI smoke run: {@code compare --quick} end to end, every workload on every implementation at
 * a tiny size. Checks the shape of the table (a row per workload, numbers where numbers belong),
 * never the figures: performance is measured by the full run, not asserted.
 */
class CompareSmokeTest {

    private static final int OURS = 2;
    private static final int KAFKA = 3;
    private static final int NETTY = 5;
    private static final int JDK = 6;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES) // a hang guard, not a performance threshold
    void quickRun_everyWorkload_printsRowsWithNumbers() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        String report;
        try (PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
            report = Compare.run(CompareOptions.parse("--quick"), log);
        }
        List<String[]> rows = tableRows(report);
        assertTrue(report.contains("Workload 1's floor"), () -> "no note on the acks floor in\n" + report);
        assertTrue(report.matches("(?s).*5 perf \\(p50 20/p75 60 ms\\), the tool with no purgatory \\(the floor\\): "
                + "[1-9][0-9,]* req/s sustained; [0-9.]+x Kafka.*"), () -> "no note on the perf floor in\n" + report);
        assertTrue(report.matches("(?s).*Workload 1's proto \\(a timer and eager removal, nothing else\\), see "
                + "ProtoPurgatory: completions/s [1-9][0-9,]* \\([0-9.]+x Kafka, [0-9.]+x ours, [0-9.]+x floor\\).*"),
                () -> "no note on the acks prototype in\n" + report);
        assertTrue(report.contains("5 perf (p50 200/p75 400 ms), proto (a timer and eager removal, nothing else)"),
                () -> "no note on the perf prototype in\n" + report);
        assertTrue(report.contains("| acks (completions/s) | ours |"), () -> "no scaling table in\n" + report);
        List<Workload> workloads = new ArrayList<>();
        for (Workload workload : Compare.workloads(new Results())) {
            if (workload instanceof ScalingWorkload) {
                workloads.addAll(ScalingWorkload.parts(ScalingWorkload.DEFAULT_THREADS)); // its rows are its parts'
            } else {
                workloads.add(workload);
            }
        }
        for (Workload workload : workloads) {
            List<String[]> own = rows.stream().filter(r -> r[0].equals(workload.title())).toList();
            assertFalse(own.isEmpty(), () -> "no row for " + workload.title() + " in\n" + report + "\n" + progress);
            for (String[] row : own) {
                String where = workload.title() + " / " + row[1];
                assertNumber(row[OURS], where + " / ours");
                boolean oursOnly = row[1].startsWith("ExpireBenchmark");
                if (!oursOnly && workload.impls().contains(Impl.KAFKA)) {
                    assertNumber(row[KAFKA], where + " / Kafka");
                }
                if (workload.impls().contains(Impl.NETTY) && !oursOnly && !row[1].startsWith("Purgatory")) {
                    assertNumber(row[NETTY], where + " / Netty");
                }
                boolean jdkToo = workload.impls().contains(Impl.NETTY) || workload.impls().contains(Impl.JDK);
                if (jdkToo && !oursOnly && !row[1].startsWith("Purgatory")) {
                    assertNumber(row[JDK], where + " / JDK");
                }
            }
        }
    }

    @Test
    void parse_optionsGiven_readsQuickRoundsAndSelection() {
        CompareOptions o = CompareOptions.parse("--quick", "--rounds", "2", "--only", "perf,acks");
        assertTrue(o.quick());
        assertEquals(2, o.rounds());
        assertTrue(o.selects("perf-low") && o.selects("acks"));
        assertFalse(o.selects("memory") || o.selects("keyed"));
        assertTrue(CompareOptions.parse("--only", "keyed").selects("keyed"));
        assertEquals(3, CompareOptions.parse().rounds());
        CompareOptions steps = CompareOptions.parse("--rates", "100000,2000000", "--threads", "1,4");
        assertEquals(List.of(100_000, 2_000_000), steps.rates());
        assertEquals(List.of(1, 4), steps.threads());
        assertTrue(CompareOptions.parse("--only", "expiration").selects("expiration-capacity-timer"));
        CompareOptions skipping = CompareOptions.parse("--only", "expiration-capacity", "--skip",
                "expiration-capacity-timer", "--background-load", "2");
        assertTrue(skipping.selects("expiration-capacity"));
        assertFalse(skipping.selects("expiration-capacity-timer"));
        assertEquals(2, skipping.backgroundLoad());
        assertEquals(0, CompareOptions.parse().backgroundLoad());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> CompareOptions.parse("--background-load", "-1"));
        assertEquals("--background-load must be >= 0: -1", negative.getMessage());
    }

    @Test
    void format_numbers_groupThousandsRoundAndShowNaNAsADash() {
        assertEquals("1,234,567", Results.format(1_234_567));
        assertEquals("12.3", Results.format(12.34));
        assertEquals("0.00271", Results.format(0.002712));
        assertEquals("—", Results.format(Double.NaN));
    }

    /** The body rows of the markdown table, cells trimmed, without the leading empty cell. */
    private static List<String[]> tableRows(String report) {
        return report.lines()
                .filter(l -> l.startsWith("| ") && !l.startsWith("| Workload"))
                .map(l -> Arrays.stream(l.substring(1, l.length() - 1).split("\\|")).map(String::trim)
                        .toArray(String[]::new))
                .toList();
    }

    private static void assertNumber(String cell, String where) {
        try {
            double v = Double.parseDouble(cell.replace(",", ""));
            assertFalse(Double.isNaN(v), where);
        } catch (NumberFormatException e) {
            fail(where + ": not a number: '" + cell + "'");
        }
    }
}
