package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every metric the shipped Grafana dashboard queries appears in the demo's /metrics output. */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("grafana", "purgatory-dashboard.json");

    @Test
    void dashboard_everyQuery_usesOnlyMetricsTheDemoExports() throws IOException {
        String json = Files.readString(DASHBOARD);
        Set<String> queried = new TreeSet<>();
        Matcher expr = Pattern.compile("\"(?:expr|definition)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        while (expr.find()) {
            Matcher metric = Pattern.compile("\\bpurgatory_[a-z_]+").matcher(expr.group(1));
            while (metric.find()) {
                queried.add(metric.group());
            }
        }
        assertThat(queried).as("metrics queried by the dashboard").hasSizeGreaterThanOrEqualTo(8);

        String scrape;
        try (DemoServer demo = new DemoServer(DemoOptions.parse("--port", "0"))) {
            scrape = demo.registry().scrape();
        }
        Set<String> exported = new TreeSet<>();
        Matcher line = Pattern.compile("(?m)^(purgatory_[a-z_]+)[{ ]").matcher(scrape);
        while (line.find()) {
            exported.add(line.group(1));
        }
        assertThat(exported).containsAll(queried);
    }
}
