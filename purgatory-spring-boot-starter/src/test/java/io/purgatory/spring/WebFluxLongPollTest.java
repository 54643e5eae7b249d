package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.purgatory.KeyedWaits;
import io.purgatory.spring.PaymentsApp.Payment;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The same long poll on WebFlux and Reactor Netty, returned both as the wait's
 * {@code CompletableFuture} ({@code /wait}) and as {@code Mono.fromFuture(() -> await(...))}
 * ({@code /wait-mono}). Netty reads the connection while the answer is pending, so a client that
 * goes away cancels the response at once, and with it the wait.
 */
class WebFluxLongPollTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20); // the waits here last 10 minutes
    private static ConfigurableApplicationContext app;
    private static KeyedWaits<String, Payment> payments;
    private static Http http;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void start() {
        app = PaymentsApp.start(WebApplicationType.REACTIVE);
        payments = app.getBean("payments", KeyedWaits.class);
        http = new Http(((WebServerApplicationContext) app).getWebServer().getPort());
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @AfterEach
    void noWaitLeft() {
        await().atMost(DEADLINE).until(() -> payments.pending() == 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"wait", "wait-mono"})
    void wait_paymentPosted_answers200WithThePayment(String endpoint) {
        CompletableFuture<HttpResponse<String>> wait = http.get("/orders/1/" + endpoint);
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);

        assertThat(http.post("/orders/1/paid", "{\"amount\":\"9 EUR\"}").join().statusCode()).isEqualTo(200);

        assertThat(wait.join().statusCode()).isEqualTo(200);
        assertThat(wait.join().body()).isEqualTo("{\"amount\":\"9 EUR\"}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"wait", "wait-mono"})
    void wait_itsTimeoutPasses_answers204(String endpoint) {
        long expired = payments.stats().expired();

        assertThat(http.get("/orders/2/" + endpoint + "?timeoutMs=50").join().statusCode()).isEqualTo(204);
        assertThat(payments.stats().expired()).isEqualTo(expired + 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"wait", "wait-mono"})
    void wait_clientGoesAway_theWaitIsCancelled(String endpoint) throws IOException {
        long cancelled = payments.stats().cancelled();
        Socket client = http.getAndHold("/orders/3/" + endpoint);
        try {
            await().atMost(DEADLINE).until(() -> payments.pending() == 1);
        } finally {
            client.close(); // before the answer
        }

        await().atMost(DEADLINE).until(() -> payments.stats().cancelled() == cancelled + 1);
        assertThat(payments.pending()).isZero();
    }
}
