package io.purgatory.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.purgatory.KeyedWaits;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.util.ClassUtils;

/**
 * The example application on its embedded Tomcat, on a random loopback port, hit by a real HTTP
 * client. Spring MVC without Reactor: the starter's handler cancels the waits here.
 */
@AutoConfigureObservability // a test context exports no metrics (no /actuator/prometheus) without it
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.address=127.0.0.1", "spring.mvc.async.request-timeout=5s", "spring.main.banner-mode=off"})
class OrderPaymentsApplicationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30); // generous: nothing here is meant to take it
    private final HttpClient client = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private KeyedWaits<String, Payment> payments;

    @AfterEach
    void noWaitLeft() {
        await().atMost(DEADLINE).until(() -> payments.pending() == 0);
    }

    @Test
    void wait_orderPaid_answers200WithThePayment() {
        CompletableFuture<HttpResponse<String>> wait = send("GET", "/orders/42/wait", null);
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);

        assertThat(send("POST", "/orders/42/paid", "{\"amount\":\"12.50 EUR\",\"reference\":\"tx-1\"}").join()
                .statusCode()).isEqualTo(202);

        assertThat(wait.join().statusCode()).isEqualTo(200);
        assertThat(wait.join().body()).isEqualTo("{\"amount\":\"12.50 EUR\",\"reference\":\"tx-1\"}");
    }

    @Test
    void wait_orderPaidJustBefore_answers200AtOnce() {
        send("POST", "/orders/43/paid", "{\"amount\":\"7 EUR\",\"reference\":\"tx-2\"}").join();

        HttpResponse<String> wait = send("GET", "/orders/43/wait", null).join();

        assertThat(wait.statusCode()).isEqualTo(200);
        assertThat(wait.body()).contains("tx-2");
    }

    /**
     * The client leaves before its 20-second wait ends; Tomcat finds out at the async request
     * timeout (5 s here), and the wait is cancelled then.
     */
    @Test
    void wait_clientGoesAway_theWaitIsCancelled() throws IOException {
        assertThat(ClassUtils.isPresent("reactor.core.publisher.Mono", null)).as("Reactor on the class path").isFalse();
        long cancelled = payments.stats().cancelled();
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /orders/44/wait HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            await().atMost(DEADLINE).until(() -> payments.pending() == 1);
        } // the client goes away

        await().atMost(DEADLINE).until(() -> payments.stats().cancelled() == cancelled + 1);
        assertThat(payments.stats().expired()).isZero();
    }

    @Test
    void actuator_prometheusAndPurgatoriesEndpoints_serveThePurgatoryMetricsAndStats() {
        String prometheus = send("GET", "/actuator/prometheus", null).join().body();
        assertThat(prometheus).contains("purgatory_pending_operations{purgatory=\"payments\"}",
                "purgatory_events_retained_events{purgatory=\"payments\"}");

        String stats = send("GET", "/actuator/purgatories/payments", null).join().body();
        assertThat(stats).contains("\"type\":\"keyed-waits\"", "\"closed\":false");
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (json == null) {
            request.method(method, BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, BodyPublishers.ofString(json));
        }
        return client.sendAsync(request.build(), BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS);
    }
}
