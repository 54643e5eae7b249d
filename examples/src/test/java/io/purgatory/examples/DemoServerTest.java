package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DemoServerTest {

    @Test
    void run_shortDuration_printsAProgressLineASecondThenTheSummary() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DemoOptions options = DemoOptions.parse("--duration", "2", "--port", "0", "--rate", "500");
        DemoServer demo = new DemoServer(options);
        try (demo; PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            demo.start();
            demo.run(out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(demo.closingNote()).matches("closed: \\d+ operations still pending were expired.*; 0 pending now");

        assertThat(output).contains("dashboard http://127.0.0.1:", "t=  1s", "t=  2s", "purgatory  completed");
        assertThat(output).containsPattern("(?m)^produce +[1-9]\\d* ");
        assertThat(output).containsPattern("(?m)^fetch +\\d+ ");
        assertThat(output).containsPattern("(?m)^orders +\\d+ ");
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
}
