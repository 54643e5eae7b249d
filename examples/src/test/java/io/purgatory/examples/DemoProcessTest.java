package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.Eventually;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The demo's main in a child JVM, as a user runs it: its exit status on bad options, and what a
 * SIGTERM does ({@link ProcessHandle#destroy()} sends SIGTERM on Linux and macOS), to the demo and
 * to the clients whose requests wait in its purgatories.
 */
class DemoProcessTest {

    @Test
    void main_badOption_exitsWithStatus2AndPrintsTheUsageToStderr() throws Exception {
        Process demo = start("--port", "0", "--bogus", "1");
        CompletableFuture<String> err = readAll(demo.getErrorStream());
        CompletableFuture<String> out = readAll(demo.getInputStream());

        assertThat(demo.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(demo.exitValue()).isEqualTo(2);
        assertThat(err.get(10, TimeUnit.SECONDS)).contains("unknown option --bogus", "Usage: DemoServer");
        assertThat(out.get(10, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void main_sigterm_printsTheSummaryAndClosesThePurgatoriesBeforeExiting() throws Exception {
        Process demo = start("--duration", "0", "--port", "0", "--rate", "300", "--stall-every-s", "0");
        CompletableFuture<String> err = readAll(demo.getErrorStream());
        // if it hangs, a kill ends its output (and the test, with status 137) rather than the build
        CompletableFuture.delayedExecutor(90, TimeUnit.SECONDS).execute(demo::destroyForcibly);
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(demo.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
                if (line.startsWith("t=  2s")) {
                    demo.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of the pipes
                }
            }
        } finally {
            if (!demo.waitFor(60, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
        String output = String.join("\n", lines);

        assertThat(output).as("stdout; stderr:%n%s", err.get(10, TimeUnit.SECONDS))
                .contains("t=  2s", "purgatory  completed")
                .containsPattern("(?m)^produce +[1-9]\\d* ")
                .containsPattern("closed: \\d+ operations still pending were expired.*; 0 pending now");
        assertThat(output).containsOnlyOnce("purgatory  completed");
        assertThat(lines.get(lines.size() - 1)).as("the last line").startsWith("closed: ");
        assertThat(demo.exitValue()).as("128 + SIGTERM").isEqualTo(143);
    }

    @Test
    void main_sigtermWhileLongPollsWait_answersEachWithAnHttpStatusBeforeExiting() throws Exception {
        // no load: the test's requests are the only ones pending, so the stats show when they wait
        Process demo = start("--duration", "0", "--port", "0", "--producers", "0", "--consumers", "0",
                "--order-rate", "0", "--stall-every-s", "0");
        CompletableFuture<String> err = readAll(demo.getErrorStream());
        CompletableFuture.delayedExecutor(90, TimeUnit.SECONDS).execute(demo::destroyForcibly);
        try (BufferedReader out = new BufferedReader(new InputStreamReader(demo.getInputStream(),
                StandardCharsets.UTF_8))) {
            String banner = out.readLine();
            Matcher port = Pattern.compile("dashboard http://127\\.0\\.0\\.1:(\\d+)/").matcher(String.valueOf(banner));
            if (!port.find()) {
                demo.destroyForcibly();
                throw new AssertionError("no banner but " + banner + "; stderr:\n" + err.join());
            }
            String base = "http://127.0.0.1:" + port.group(1);
            HttpClient client = HttpClient.newHttpClient();
            CompletableFuture<HttpResponse<String>> order =
                    send(client, base + "/orders/order-42/wait?timeoutMs=60000");
            CompletableFuture<HttpResponse<String>> fetch =
                    send(client, base + "/fetch?partition=0&offset=0&minBytes=1&maxWaitMs=60000");
            Eventually.await("the long poll and the fetch are pending", () -> {
                String stats = send(client, base + "/api/stats").join().body();
                return stats.contains("\"name\":\"orders\",\"pending\":1,")
                        && stats.contains("\"name\":\"fetch\",\"pending\":1,");
            });

            demo.toHandle().destroy(); // SIGTERM

            HttpResponse<String> orderAnswer = order.get(60, TimeUnit.SECONDS);
            assertThat(orderAnswer.statusCode()).isEqualTo(503);
            assertThat(orderAnswer.body()).contains("SHUTTING_DOWN");
            HttpResponse<String> fetchAnswer = fetch.get(60, TimeUnit.SECONDS);
            assertThat(fetchAnswer.statusCode()).as("the fetch, expired at the close").isEqualTo(200);
            assertThat(fetchAnswer.body()).contains("\"records\":[]");
            List<String> rest = out.lines().toList();
            assertThat(rest).anyMatch(line -> line.matches("closed: 2 operations still pending were expired.*"));
        } finally {
            if (!demo.waitFor(60, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
        assertThat(demo.exitValue()).as("128 + SIGTERM; stderr:%n%s", err.get(10, TimeUnit.SECONDS)).isEqualTo(143);
    }

    private static CompletableFuture<HttpResponse<String>> send(HttpClient client, String uri) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(uri)).build(), BodyHandlers.ofString());
    }

    private static Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), DemoServer.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        return process;
    }

    private static CompletableFuture<String> readAll(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        });
    }
}
