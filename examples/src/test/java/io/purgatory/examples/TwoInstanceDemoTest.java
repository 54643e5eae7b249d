package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.Eventually;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/kafka-feed.md's two-instance demo: a real broker, two instances, a long poll answered across them;
 * its options, and a SIGTERM to its main while a long poll waits.
 */
class TwoInstanceDemoTest {

    private static TwoInstanceDemo demo;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        demo = TwoInstanceDemo.start(2, 0, null);
    }

    @AfterAll
    static void stop() {
        demo.close();
    }

    @Test
    void longPoll_paymentPostedToTheOtherInstance_isAnsweredByIt() {
        PaymentInstance one = demo.instances().get(0);
        PaymentInstance two = demo.instances().get(1);
        CompletableFuture<HttpResponse<String>> poll = send("GET", one, "/orders/order-42/wait?timeoutMs=60000");
        Eventually.await("the long poll is parked", () -> feedBody(one).contains("\"partitions\":3"));

        HttpResponse<String> paid = send("POST", two, "/orders/order-42/paid?amountCents=1250").join();

        assertThat(paid.statusCode()).isEqualTo(202);
        assertThat(paid.body()).contains("\"publishedBy\":\"" + two.name() + "\"");
        HttpResponse<String> answer = poll.join();
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"answeredBy\":\"" + one.name() + "\"", "\"orderId\":\"order-42\"",
                "\"amountCents\":1250", "\"receivedBy\":\"" + two.name() + "\"");
        assertThat(one.name()).isNotEqualTo(two.name());
    }

    @Test
    void longPoll_paymentPostedBefore_isStillAnsweredByIt() {
        PaymentInstance one = demo.instances().get(0);
        PaymentInstance two = demo.instances().get(1);
        assertThat(send("POST", one, "/orders/order-7/paid?amountCents=99").join().statusCode()).isEqualTo(202);
        Eventually.await("instance-2 has read it", () -> feedBody(two).contains("\"eventsNoWaiter\":")
                && !feedBody(two).contains("\"eventsNoWaiter\":0"));

        HttpResponse<String> answer = send("GET", two, "/orders/order-7/wait?timeoutMs=1").join();
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"amountCents\":99");
    }

    @Test
    void request_badInput_gets400Or404() {
        PaymentInstance one = demo.instances().get(0);
        assertThat(send("GET", one, "/orders/o/wait?timeoutMs=soon").join().statusCode()).isEqualTo(400);
        assertThat(send("GET", one, "/orders/o/elsewhere").join().statusCode()).isEqualTo(404);
        assertThat(send("DELETE", one, "/orders/o/paid").join().statusCode()).isEqualTo(405);
    }

    @Test
    void paid_withoutAmountCents_gets400NamingIt() {
        HttpResponse<String> paid = send("POST", demo.instances().get(0), "/orders/order-9/paid").join();

        assertThat(paid.statusCode()).isEqualTo(400);
        assertThat(paid.body()).contains("'amountCents' is required");
    }

    @Test
    void launch_badOptions_exitWithStatus2NamingTheOptionAndValue() throws Exception {
        String[][] cases = {{"--instances", "abc"}, {"--instances", "0"}, {"--port", "99999"}, {"--bogus"},
            {"--duration"}};
        String[] expected = {"--instances must be a whole number: 'abc'", "--instances must be from 1 to 100: 0",
            "--port must be from 0 to 65534: 99999",
            "unknown option --bogus; the options are --instances, --port, --duration, --bootstrap and --help",
            "option --duration needs a value"};
        for (int i = 0; i < cases.length; i++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();

            int status = TwoInstanceDemo.launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), cases[i]);

            assertThat(status).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).startsWith(expected[i] + "\n")
                    .contains("Usage: TwoInstanceDemo");
            assertThat(out.size()).isZero();
        }
    }

    /**
     * The demo's main in a child JVM, joining this test's broker with one instance, and a SIGTERM
     * while a long poll waits on it ({@link ProcessHandle#destroy()} sends SIGTERM on Linux and macOS).
     */
    @Test
    void main_sigtermWhileALongPollWaits_answersIt503BeforeExiting() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), TwoInstanceDemo.class.getName(),
                "--instances", "1", "--port", "0", "--duration", "0", "--bootstrap", demo.bootstrapServers());
        Process child = new ProcessBuilder(command).redirectError(Redirect.DISCARD).start();
        child.getOutputStream().close();
        CompletableFuture.delayedExecutor(120, TimeUnit.SECONDS).execute(child::destroyForcibly);
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String banner = out.readLine();
            Matcher address = Pattern.compile("(instance-\\d+) on http://127\\.0\\.0\\.1:(\\d+)")
                    .matcher(String.valueOf(banner));
            assertThat(address.find()).as("the banner's first line: %s", banner).isTrue();
            URI base = URI.create("http://127.0.0.1:" + address.group(2));
            CompletableFuture<HttpResponse<String>> poll =
                    send("GET", base.resolve("/orders/order-77/wait?timeoutMs=60000"));
            Eventually.await("the long poll is parked", () -> send("GET", base.resolve("/feed")).join().body()
                    .contains("\"pendingWaits\":1,"));

            child.toHandle().destroy(); // SIGTERM

            HttpResponse<String> answer = poll.get(60, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(answer.body()).contains(address.group(1) + " is stopping");
            assertThat(out.lines().toList()).last().asString().startsWith("stopped: ");
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertThat(child.exitValue()).as("128 + SIGTERM").isEqualTo(143);
    }

    private String feedBody(PaymentInstance instance) {
        return send("GET", instance, "/feed").join().body();
    }

    private CompletableFuture<HttpResponse<String>> send(String method, PaymentInstance to, String path) {
        return send(method, URI.create("http://127.0.0.1:" + to.port() + path));
    }

    private CompletableFuture<HttpResponse<String>> send(String method, URI uri) {
        return client.sendAsync(HttpRequest.newBuilder(uri).method(method, BodyPublishers.noBody()).build(),
                BodyHandlers.ofString()).orTimeout(90, TimeUnit.SECONDS);
    }
}
