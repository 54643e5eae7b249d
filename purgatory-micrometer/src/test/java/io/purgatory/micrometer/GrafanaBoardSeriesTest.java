package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.timer.ManualTimer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every panel of the shipped Grafana board (examples/grafana) finds its series in a plain
 * {@link PrometheusMeterRegistry}, bound as docs/metrics.md tells a user to bind it: no
 * {@code MeterFilter}, no percentile configuration. For each query: each metric it reads is
 * scraped, with each label it groups or filters by, and the p99 panels' buckets count what
 * happened.
 */
class GrafanaBoardSeriesTest {

    private static final Path BOARD = Path.of("..", "examples", "grafana", "purgatory-dashboard.json");
    private static final Pattern QUERY = Pattern.compile("\"(?:expr|definition)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern METRIC = Pattern.compile("\\bpurgatory_[a-z_]+");
    private static final Pattern GROUPING = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
    private static final Pattern MATCHER = Pattern.compile("(purgatory_[a-z_]+)\\{([^}]*)}");
    private static final Pattern EQUALS = Pattern.compile("(\\w+)=\\\\?\"([^\"\\\\$]+)\\\\?\"");

    @Test
    void boardQueries_afterTraffic_eachFindsItsSeriesInAPlainPrometheusRegistry() throws IOException {
        String scrape = scrapeAfterTraffic();
        List<String> queries = queries(Files.readString(BOARD));
        assertThat(queries).as("queries of the board").hasSizeGreaterThanOrEqualTo(12);

        for (String query : queries) {
            Set<String> metrics = new LinkedHashSet<>();
            METRIC.matcher(query).results().forEach(r -> metrics.add(r.group()));
            assertThat(metrics).as("a metric in %s", query).isNotEmpty();
            for (String metric : metrics) {
                List<String> series = series(scrape, metric);
                assertThat(series).as("series of %s, queried by %s", metric, query).isNotEmpty();
                for (String label : groupedBy(query)) {
                    assertThat(series).as("%s grouped by %s in %s", metric, label, query)
                            .anyMatch(s -> s.contains(label + "=\""));
                }
            }
            Matcher selector = MATCHER.matcher(query);
            while (selector.find()) {
                Matcher equals = EQUALS.matcher(selector.group(2));
                while (equals.find()) {
                    String wanted = equals.group(1) + "=\"" + equals.group(2) + "\"";
                    assertThat(series(scrape, selector.group(1))).as("%s{%s} in %s", selector.group(1), wanted, query)
                            .anyMatch(s -> s.contains(wanted));
                }
            }
        }
    }

    @Test
    void p99Panels_afterTraffic_bucketsCountTheCompletionsAndTheLateExpiry() {
        String scrape = scrapeAfterTraffic();

        assertThat(series(scrape, "purgatory_operations_seconds_bucket"))
                .anyMatch(s -> s.contains("outcome=\"completed\"") && s.contains("purgatory=\"orders\"")
                        && s.contains("le=\"0.025\"") && valueOf(s) == 1);
        assertThat(series(scrape, "purgatory_expiration_lateness_seconds_bucket"))
                .anyMatch(s -> s.contains("purgatory=\"orders\"") && s.contains("le=\"+Inf\"") && valueOf(s) == 1);
        assertThat(series(scrape, "purgatory_completed_first_try_total"))
                .anyMatch(s -> s.contains("purgatory=\"payments\"") && valueOf(s) == 1);
    }

    /** A user's registry and purgatories, bound with MicrometerMetrics.of(registry), after some traffic. */
    private static String scrapeAfterTraffic() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ManualTimer timer = new ManualTimer();
             DelayedOperationPurgatory<Op> orders = DelayedOperationPurgatory.<Op>builder("orders").timer(timer)
                     .reaperEnabled(false).metrics(MicrometerMetrics.of(registry)).build();
             KeyedWaits<String, String> payments = KeyedWaits.builder("payments").timer(timer)
                     .retainEvents(Duration.ofSeconds(30), 100).metrics(MicrometerMetrics.of(registry)).build()) {
            Op completed = new Op(1_000);
            orders.tryCompleteElseWatch(completed, List.of("o1"));
            orders.tryCompleteElseWatch(new Op(10), List.of("o2"));
            timer.advanceClock(20); // o2 expires at 10 (exact on the manual clock)
            completed.ready = true;
            orders.checkAndComplete("o1"); // after 20 ms: in the 25 ms bucket and above
            payments.complete("p1", "PAID");
            var unused = payments.await("p1", Duration.ofSeconds(5)); // answered at once by the retained event
            return registry.scrape();
        } finally {
            registry.close();
        }
    }

    private static double valueOf(String sample) {
        return Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
    }

    private static List<String> queries(String board) {
        List<String> queries = new ArrayList<>();
        Matcher m = QUERY.matcher(board);
        while (m.find()) {
            queries.add(m.group(1));
        }
        return queries;
    }

    private static Set<String> groupedBy(String query) {
        Set<String> labels = new LinkedHashSet<>();
        Matcher m = GROUPING.matcher(query);
        while (m.find()) {
            for (String label : m.group(1).split(",")) {
                labels.add(label.trim());
            }
        }
        return labels;
    }

    private static List<String> series(String scrape, String metric) {
        return scrape.lines().filter(line -> line.startsWith(metric + "{") || line.startsWith(metric + " ")).toList();
    }
}
