package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.purgatory.KeyedWaits;
import io.purgatory.timer.ManualTimer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LongPollServerTest {

    private final ManualTimer timer = new ManualTimer(); // time passes when the test says so
    private final KeyedWaits<String, String> payments = KeyedWaits.builder("payments").timer(timer)
            .retainEvents(Duration.ofSeconds(30), 100).maxPending(2).build();
    private final HttpClient client = HttpClient.newHttpClient();
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        new LongPollServer(payments).serve(server);
        server.start();
    }

    @AfterEach
    void stop() {
        LongPollServer.stop(payments, server); // main's shutdown hook: first the waits, then the server
    }

    @Test
    void wait_noPayment_gets204AtItsTimeout() throws InterruptedException {
        CompletableFuture<HttpResponse<String>> wait = send("GET", "/orders/42/wait", "");
        assertThat(timer.awaitScheduled(1, Duration.ofSeconds(30))).as("the wait is pending").isTrue();

        timer.advanceClock(19_999);
        assertThat(payments.pending()).isEqualTo(1);
        timer.advanceClock(1);

        assertThat(wait.join().statusCode()).isEqualTo(204);
    }

    @Test
    void wait_paymentPosted_gets200WithThePayment() throws InterruptedException {
        CompletableFuture<HttpResponse<String>> wait = send("GET", "/orders/42/wait", "");
        assertThat(timer.awaitScheduled(1, Duration.ofSeconds(30))).as("the wait is pending").isTrue();

        assertThat(send("POST", "/orders/42/paid", "12.50 EUR").join().body()).isEqualTo("answered waits: 1");

        assertThat(wait.join().statusCode()).isEqualTo(200);
        assertThat(wait.join().body()).isEqualTo("12.50 EUR");
    }

    @Test
    void wait_paidJustBefore_gets200WithThePayment() {
        send("POST", "/orders/42/paid", "12.50 EUR").join();
        timer.advanceClock(29_999);

        assertThat(send("GET", "/orders/42/wait", "").join().body()).isEqualTo("12.50 EUR");
    }

    @Test
    void wait_pendingWhenTheServerStops_gets503() throws InterruptedException {
        CompletableFuture<HttpResponse<String>> wait = send("GET", "/orders/42/wait", "");
        assertThat(timer.awaitScheduled(1, Duration.ofSeconds(30))).as("the wait is pending").isTrue();

        LongPollServer.stop(payments, server);

        assertThat(wait.join().statusCode()).isEqualTo(503);
    }

    @Test
    void wait_maxPendingReached_gets429() throws InterruptedException {
        CompletableFuture<HttpResponse<String>> first = send("GET", "/orders/41/wait", "");
        CompletableFuture<HttpResponse<String>> second = send("GET", "/orders/42/wait", "");
        assertThat(timer.awaitScheduled(2, Duration.ofSeconds(30))).as("maxPending (2) waits pending").isTrue();

        assertThat(send("GET", "/orders/43/wait", "").join().statusCode()).isEqualTo(429);
        assertThat(List.of(first, second)).as("the waits held").noneMatch(CompletableFuture::isDone);
    }

    @Test
    void wait_afterTheWaitsClosed_gets503() {
        payments.close();

        assertThat(send("GET", "/orders/42/wait", "").join().statusCode()).isEqualTo(503);
    }

    @Test
    void pending_twoWaits_listsThemOldestFirstWithTheirKeys() throws InterruptedException {
        CompletableFuture<HttpResponse<String>> first = send("GET", "/orders/41/wait", "");
        assertThat(timer.awaitScheduled(1, Duration.ofSeconds(30))).as("the first wait is pending").isTrue();
        timer.advanceClock(5_000);
        CompletableFuture<HttpResponse<String>> second = send("GET", "/orders/42/wait", "");
        assertThat(timer.awaitScheduled(2, Duration.ofSeconds(30))).as("the second wait is pending").isTrue();

        assertThat(send("GET", "/pending", "").join().body()).isEqualTo("[{\"keys\":[\"41\"],\"ageMs\":5000,"
                + "\"timeLeftMs\":15000,\"tried\":false},{\"keys\":[\"42\"],\"ageMs\":0,\"timeLeftMs\":20000,"
                + "\"tried\":false}]");
        assertThat(send("GET", "/pending?limit=1", "").join().body()).startsWith("[{\"keys\":[\"41\"]").endsWith("}]")
                .doesNotContain("42");
        assertThat(List.of(first, second)).as("still waiting").noneMatch(CompletableFuture::isDone);
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String body) {
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        return client.sendAsync(HttpRequest.newBuilder(uri).method(method, BodyPublishers.ofString(body)).build(),
                BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS); // a hang fails, not a slow answer
    }
}
