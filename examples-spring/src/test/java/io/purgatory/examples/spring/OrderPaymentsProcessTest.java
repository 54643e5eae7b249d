package io.purgatory.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The example application's main in a child JVM, as a user runs it, and a SIGTERM while a long
 * poll waits ({@link ProcessHandle#destroy()} sends SIGTERM on Linux and macOS): Spring Boot's
 * graceful shutdown and the starter answer the wait before the JVM exits.
 */
class OrderPaymentsProcessTest {

    private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");
    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void main_sigtermWhileALongPollWaits_answersIt503BeforeExiting() throws Exception {
        Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), OrderPaymentsApplication.class.getName(),
                "--server.port=0", "--spring.main.banner-mode=off",
                "--logging.level.org.springframework.boot.web.embedded.tomcat.TomcatWebServer=INFO")
                .redirectError(Redirect.DISCARD).start();
        app.getOutputStream().close();
        CompletableFuture.delayedExecutor(120, TimeUnit.SECONDS).execute(app::destroyForcibly);
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(),
                StandardCharsets.UTF_8))) {
            String base = "http://127.0.0.1:" + port(out);
            CompletableFuture<HttpResponse<String>> wait = get(base + "/orders/42/wait");
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    get(base + "/actuator/purgatories/payments").join().body().contains("\"pending\":1,"));

            app.toHandle().destroy(); // SIGTERM

            HttpResponse<String> answer = wait.get(60, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).isEqualTo(503);
            out.transferTo(Writer.nullWriter()); // to the end of its output: the JVM has exited
        } finally {
            if (!app.waitFor(60, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
        assertThat(app.exitValue()).as("128 + SIGTERM").isEqualTo(143);
    }

    private static int port(BufferedReader out) throws IOException {
        List<String> seen = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null) {
            Matcher started = STARTED.matcher(line);
            if (started.find()) {
                return Integer.parseInt(started.group(1));
            }
            seen.add(line);
        }
        throw new AssertionError("the application ended before its server started; it printed:\n"
                + String.join("\n", seen));
    }

    private CompletableFuture<HttpResponse<String>> get(String uri) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(uri)).build(), BodyHandlers.ofString())
                .orTimeout(60, TimeUnit.SECONDS);
    }
}
