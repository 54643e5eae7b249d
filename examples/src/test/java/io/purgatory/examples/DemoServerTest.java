package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DemoServerTest {

    @Test
    void run_shortDuration_printsAProgressLineASecond_thenFinishPrintsTheSummaryAndCloses() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DemoOptions options = DemoOptions.parse("--duration", "2", "--port", "0", "--rate", "500");
        DemoServer demo = new DemoServer(options);
        try (demo; PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            demo.start();
            demo.run(out);
            demo.finish(out);
            demo.finish(out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);

        assertThat(output).contains("dashboard http://127.0.0.1:", "t=  1s", "t=  2s", "purgatory  completed");
        assertThat(output).containsPattern("(?m)^produce +[1-9]\\d* ");
        assertThat(output).containsPattern("(?m)^fetch +\\d+ ");
        assertThat(output).containsPattern("(?m)^orders +\\d+ ");
        assertThat(output).containsOnlyOnce("purgatory  completed").containsOnlyOnce("closed: ")
                .containsPattern("closed: \\d+ operations still pending were expired.*; 0 pending now");
        assertThat(demo.history().samplesAfter(-1)).as("sampled once a second while it ran").isNotEmpty();
    }

    @Test
    void options_badValues_areRejectedNamingTheOption() {
        assertThatThrownBy(() -> DemoOptions.parse("--duration", "x"))
                .hasMessageContaining("--duration").hasMessageContaining("x");
        assertThatThrownBy(() -> DemoOptions.parse("--rate", "0")).hasMessageContaining("--rate");
        assertThatThrownBy(() -> DemoOptions.parse("--bogus", "1")).hasMessageContaining("--bogus");
        assertThatThrownBy(() -> DemoOptions.parse("--port")).hasMessageContaining("--port");
        assertThat(DemoOptions.parse("--help").help()).isTrue();
    }

    @Test
    void options_unknownOption_isNamedAsUnknown_withTheKnownOnes_evenWithoutAValue() {
        for (String[] args : new String[][] {{"--bogus"}, {"--bogus", "1"}, {"--duration", "5", "--bogus"}}) {
            assertThatThrownBy(() -> DemoOptions.parse(args)).as(String.join(" ", args))
                    .hasMessageStartingWith("unknown option --bogus; the options are --duration, --port,")
                    .hasMessageContaining("--stall-s and --help")
                    .hasMessageNotContaining("needs a value");
        }
        assertThatThrownBy(() -> DemoOptions.parse("--port")).hasMessage("option --port needs a value");
    }

    @Test
    void launch_badOptions_returnStatus2WithTheProblemAndTheUsageOnStderr() throws Exception {
        for (String[] args : new String[][] {{"--bogus", "1"}, {"--bogus"}, {"--rate", "0"}, {"--port", "70000"},
                {"--duration"}, {"--order-rate", "x"}}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();

            int status = DemoServer.launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), args);

            assertThat(status).as("exit status for %s", String.join(" ", args)).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains(args[0], "Usage: DemoServer");
            assertThat(out.size()).isZero();
        }
    }

    @Test
    void launch_help_printsTheUsageAndReturns0() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int status = DemoServer.launch(new PrintStream(out, true, StandardCharsets.UTF_8), System.err, "--help");

        assertThat(status).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("Usage: DemoServer").contains("--duration S");
    }
}
