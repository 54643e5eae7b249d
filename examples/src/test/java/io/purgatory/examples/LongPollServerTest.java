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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LongPollServerTest {

    private final ManualTimer timer = new ManualTimer(); // time passes when the test says so
    private final KeyedWaits<String, String> payments = KeyedWaits.builder("payments").timer(timer)
            .retainEvents(Duration.ofSeconds(30), 100).build();
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

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String body) {
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        return client.sendAsync(HttpRequest.newBuilder(uri).method(method, BodyPublishers.ofString(body)).build(),
                BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS); // a hang fails, not a slow answer
    }
}
