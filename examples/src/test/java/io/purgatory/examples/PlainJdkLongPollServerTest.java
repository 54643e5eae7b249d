package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.purgatory.testsupport.Eventually;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docs/keyed-waits.md's plain-JDK comparison does what {@link LongPollServer} does, payments and early
 * payments alike. Its timeout (20 s on the JDK's own delayer) cannot be advanced by a test, so
 * this test leaves it out: that is the point the page makes.
 */
class PlainJdkLongPollServerTest {

    private final HttpClient client = HttpClient.newHttpClient();
    private final PlainJdkLongPollServer orders = new PlainJdkLongPollServer();
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        orders.serve(server);
        server.start();
    }

    @AfterEach
    void stop() {
        orders.stop(server);
    }

    @Test
    void wait_pendingWhenTheServerStops_gets503() {
        CompletableFuture<HttpResponse<String>> wait = send("GET", "/orders/44/wait", "");
        Eventually.await("the wait is pending", () -> orders.pendingWaits() == 1);

        orders.stop(server); // main's shutdown hook

        assertThat(wait.join().statusCode()).isEqualTo(503);
        assertThat(orders.pendingWaits()).isZero();
    }

    @Test
    void wait_paymentPosted_gets200WithThePayment() {
        CompletableFuture<HttpResponse<String>> first = send("GET", "/orders/42/wait", "");
        CompletableFuture<HttpResponse<String>> second = send("GET", "/orders/42/wait", "");

        // the payment answers each wait, whether it reaches the server before or after the wait
        assertThat(send("POST", "/orders/42/paid", "12.50 EUR").join().statusCode()).isEqualTo(200);

        assertThat(first.join().statusCode()).isEqualTo(200);
        assertThat(first.join().body()).isEqualTo("12.50 EUR");
        assertThat(second.join().body()).isEqualTo("12.50 EUR");
    }

    @Test
    void wait_paidJustBefore_gets200WithThePayment() {
        assertThat(send("POST", "/orders/43/paid", "9.90 EUR").join().body()).isEqualTo("answered waits: 0");

        HttpResponse<String> response = send("GET", "/orders/43/wait", "").join();

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("9.90 EUR");
    }

    @Test
    void path_unknown_gets404() {
        assertThat(send("GET", "/orders/42/shipped", "").join().statusCode()).isEqualTo(404);
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String body) {
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        return client.sendAsync(HttpRequest.newBuilder(uri).method(method, BodyPublishers.ofString(body)).build(),
                BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS);
    }
}
