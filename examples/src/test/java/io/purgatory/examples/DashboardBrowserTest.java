package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The dashboard in a real headless Chromium (Debian's; .ci/run installs it): it loads, polls
 * /api/stats, and shows a non-zero pending count while load runs. Saves target/dashboard.png.
 * Outside CI the test is skipped when no Chromium is installed; in CI (CI=true) it fails.
 */
class DashboardBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @Test
    void dashboard_inHeadlessChromium_showsPendingOperationsWhileLoadRuns() throws Exception {
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        if (!ci) {
            assumeTrue(Files.isExecutable(CHROMIUM), "Chromium not installed (apt-get install chromium)");
        }
        DemoOptions options = DemoOptions.parse("--port", "0", "--rate", "1000", "--stall-every-s", "0");
        try (DemoServer demo = new DemoServer(options)) {
            String url = "http://127.0.0.1:" + demo.start() + "/";
            Eventually.await("operations pending", () -> demo.replicaManager().producePurgatory().numDelayed() > 0);

            String dom = chromium(List.of("--dump-dom", url));
            Matcher pending = Pattern.compile("id=\"pending-produce\">(\\d+)<").matcher(dom);
            assertThat(pending.find()).as("the page rendered the purgatory table:\n%s", dom).isTrue();
            assertThat(Integer.parseInt(pending.group(1))).isPositive();
            assertThat(dom).contains("id=\"pending-fetch\"", "id=\"pending-orders\"", "live");

            Path screenshot = Path.of("target", "dashboard.png").toAbsolutePath();
            Files.deleteIfExists(screenshot);
            chromium(List.of("--screenshot=" + screenshot, "--window-size=1280,960", url));
            assertThat(screenshot).exists();
            assertThat(Files.size(screenshot)).isGreaterThan(10_000);
        }
    }

    private static String chromium(List<String> args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("chromium-profile");
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile, "--virtual-time-budget=4000"));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
        process.getOutputStream().close();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        Thread drainErr = new Thread(() -> drain(process.getErrorStream(), new ByteArrayOutputStream()));
        drainErr.setDaemon(true);
        drainErr.start();
        drain(process.getInputStream(), stdout);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("chromium did not finish within 60 s");
        }
        return stdout.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void drain(InputStream in, ByteArrayOutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException ignored) {
            // the process ended
        }
    }
}
