package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The demo's main in a child JVM, as a user runs it: its exit status on bad options, and what a
 * SIGTERM does ({@link ProcessHandle#destroy()} sends SIGTERM on Linux and macOS).
 */
class DemoProcessTest {

    @Test
    void main_badOption_exitsWithStatus2AndPrintsTheUsageToStderr() throws Exception {
        Process demo = start("--port", "0", "--bogus", "1");
        CompletableFuture<String> err = readAll(demo.getErrorStream());
        CompletableFuture<String> out = readAll(demo.getInputStream());

        assertThat(demo.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(demo.exitValue()).isEqualTo(2);
        assertThat(err.get(10, TimeUnit.SECONDS)).contains("unknown option: --bogus", "Usage: DemoServer");
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
