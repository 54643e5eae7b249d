package io.purgatory.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The ours/Kafka ratio is paired by round, so a slow stretch of the machine does not skew it. */
class ResultsTest {

    private static final Metric RATE = new Metric("t", "rate", Bar.atLeastTimesKafka(3));

    @Test
    void ratio_samplesFromEveryRound_isTheMedianOfThePerRoundRatios() {
        Results results = new Results();
        double[] ours = {10, 1, 12};
        double[] kafka = {5, 1, 2}; // per round: 2, 1, 6; medians 10 and 2 would say 5
        for (int i = 0; i < ours.length; i++) {
            results.record(RATE, Impl.OURS, ours[i]);
            results.record(RATE, Impl.KAFKA, kafka[i]);
        }

        assertEquals(2.0, results.ratio(RATE));
        assertContains(results.markdownTable(), "| t | rate | 10 | 2 | 2.00 | — | — | >= 3x Kafka | no |");
    }

    @Test
    void ratio_unevenSamplesOrAZeroBaseline_fallsBackToTheMediansOrNothing() {
        Results results = new Results();
        results.record(RATE, Impl.OURS, 9);
        results.record(RATE, Impl.OURS, 12);
        results.record(RATE, Impl.KAFKA, 3);
        assertEquals(3.5, results.ratio(RATE)); // 10.5 / 3
        assertContains(results.markdownTable(), "| 10.5 | 3 | 3.50 | — | — | >= 3x Kafka | yes |");

        Metric early = new Metric("t", "early", Bar.NONE);
        results.record(early, Impl.OURS, 0);
        results.record(early, Impl.KAFKA, 0);
        assertTrue(Double.isNaN(results.ratio(early)));
        assertContains(results.markdownTable(), "| t | early | 0 | 0 | — |");
    }

    @Test
    void ratio_ofAnyTwoImplementations_isPairedTooAndAYardstickGetsNoColumn() {
        Results results = new Results();
        double[] floor = {30, 8, 6};
        double[] kafka = {10, 2, 4}; // per round: 3, 4, 1.5
        for (int i = 0; i < floor.length; i++) {
            results.record(RATE, Impl.FLOOR, floor[i]);
            results.record(RATE, Impl.KAFKA, kafka[i]);
        }

        assertEquals(3.0, results.ratio(RATE, Impl.FLOOR, Impl.KAFKA));
        assertTrue(Double.isNaN(results.ratio(RATE)), "no ours: no ours/Kafka ratio");
        assertContains(results.markdownTable(), "| t | rate | — | 4 | — | — | — |");
    }

    @Test
    void ratio_ofARowVersusTheJdk_isOursOverTheJdkAndSaysSo() {
        Results results = new Results();
        Metric bytes = new Metric("t", "bytes", Bar.noMoreThan("JDK map"), Impl.JDK);
        double[] ours = {80, 90, 70};
        double[] jdk = {100, 100, 50}; // per round: 0.8, 0.9, 1.4
        for (int i = 0; i < ours.length; i++) {
            results.record(bytes, Impl.OURS, ours[i]);
            results.record(bytes, Impl.JDK, jdk[i]);
        }

        assertEquals(0.9, results.ratio(bytes));
        assertContains(results.markdownTable(),
                "| t | bytes | 80 | — | 0.90 vs JDK | — | 100 | <= JDK map | yes |");
    }

    @Test
    void describe_aYardstick_givesEachMetricsMedianAndItsPairedRatiosToTheOthersThatRan() {
        Results results = new Results();
        Metric cpu = new Metric("t", "cpu", Bar.NONE);
        double[] proto = {30, 8, 6};
        double[] kafka = {10, 2, 4}; // per round: 3, 4, 1.5
        double[] ours = {15, 4, 3}; // per round: 2, 2, 2
        for (int i = 0; i < proto.length; i++) {
            results.record(RATE, Impl.PROTO, proto[i]);
            results.record(RATE, Impl.KAFKA, kafka[i]);
            results.record(RATE, Impl.OURS, ours[i]);
        }
        results.record(cpu, Impl.PROTO, 5);

        String described = results.describe(Impl.PROTO, List.of(RATE, cpu), List.of(Impl.KAFKA, Impl.OURS, Impl.FLOOR));

        assertEquals("rate 8 (3.00x Kafka, 2.00x ours); cpu 5 (medians; ratios are medians of the per-round ratios)",
                described);
    }

    private static void assertContains(String table, String row) {
        assertTrue(table.contains(row), () -> "expected " + row + " in\n" + table);
    }
}
