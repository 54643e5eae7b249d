package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.micrometer.MicrometerMetrics;
import io.purgatory.testsupport.Eventually;
import io.purgatory.timer.DaemonThreads;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The order-payment long poll over real HTTP on loopback, with the real timer and early payments kept 30 s. */
class OrderApiTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaManager replicas = ReplicaManager.create(new ReplicaManager.Config(3, 2, 60_000), registry);
    private final OrderPayments payments =
            new OrderPayments(KeyedWaits.builder("orders").metrics(MicrometerMetrics.of(registry)),
                    Duration.ofSeconds(30));
    private final ExecutorService executor = Executors.newFixedThreadPool(4, DaemonThreads.factory("test-http"));
    private final HttpClient client = HttpClient.newBuilder().executor(executor).build();
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws IOException {
        DemoStats stats = new DemoStats(registry, replicas, List.of(payments::stats));
        server = new HttpApi(replicas, payments, registry, stats, new DemoHistory(stats, 0)).start(0, executor);
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        payments.close();
        replicas.close();
        executor.shutdownNow();
    }

    @Test
    void wait_pendingWhenThePaymentsClose_gets503() throws Exception {
        CompletableFuture<HttpResponse<String>> wait = get("/orders/order-9/wait?timeoutMs=60000");
        Eventually.await("the wait is pending", () -> payments.stats().pending() == 1);

        payments.close();

        HttpResponse<String> answer = done(wait);
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.body()).contains("SHUTTING_DOWN");
    }

    @Test
    void wait_paymentPosted_gets200WithThePaymentAsJson() throws Exception {
        CompletableFuture<HttpResponse<String>> wait = get("/orders/order-1/wait?timeoutMs=60000");
        Eventually.await("the wait is pending", () -> payments.stats().pending() == 1);
        assertThat(done(get("/metrics")).body()).contains("purgatory_pending_operations{purgatory=\"orders\"} 1.0");

        HttpResponse<String> paid = done(post("/orders/order-1/paid", "amountCents=1250"));
        assertThat(paid.statusCode()).isEqualTo(200);
        assertThat(paid.body()).isEqualTo("{\"orderId\":\"order-1\",\"answeredWaits\":1}");

        HttpResponse<String> response = done(wait);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.body()).startsWith("{\"orderId\":\"order-1\",\"amountCents\":1250,\"paidAt\":\"")
                .endsWith("Z\"}");
        assertThat(payments.stats().completed()).isEqualTo(1);
    }

    @Test
    void wait_noPayment_gets204NotBeforeItsTimeout() throws Exception {
        long timeoutMs = 300;
        long start = System.nanoTime();

        HttpResponse<String> response = done(get("/orders/order-2/wait?timeoutMs=" + timeoutMs));

        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(response.statusCode()).isEqualTo(204);
        assertThat(response.body()).isEmpty();
        assertThat(response.headers().firstValue("Content-Type")).isEmpty();
        assertThat(elapsedMs).isGreaterThanOrEqualTo(timeoutMs);
        assertThat(payments.stats().expired()).isEqualTo(1);
        assertThat(payments.stats().pending()).isZero();
    }

    @Test
    void wait_paidJustBefore_gets200WithThePayment() throws Exception {
        HttpResponse<String> paid = done(post("/orders/order-3/paid?amountCents=990", ""));
        assertThat(paid.body()).isEqualTo("{\"orderId\":\"order-3\",\"answeredWaits\":0}");
        assertThat(done(get("/metrics")).body())
                .containsPattern("purgatory_events_retained\\w*\\{purgatory=\"orders\"} 1.0");

        HttpResponse<String> response = done(get("/orders/order-3/wait?timeoutMs=60000"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("{\"orderId\":\"order-3\",\"amountCents\":990,");
        assertThat(payments.stats().completedAtOnce()).isEqualTo(1);
    }

    @Test
    void wait_badParameters_get400NamingThem() throws Exception {
        assertBadRequest(get("/orders/order-4/wait"), "timeoutMs", "required");
        assertBadRequest(get("/orders/order-4/wait?timeoutMs=-1"), "timeoutMs", "-1");
        assertBadRequest(get("/orders/order-4/wait?timeoutMs=soon"), "timeoutMs", "'soon'");
        assertBadRequest(get("/orders/order-4/wait?timeoutMs=60001"), "timeoutMs", "60000", "60001");
        assertBadRequest(get("/orders/order%3B1/wait?timeoutMs=10"), "order id", "'order;1'");
        assertBadRequest(post("/orders/order-4/paid?amountCents=-3", ""), "amountCents", "-3");
        assertBadRequest(post("/orders/order-4/paid", "amountCents=1.50"), "amountCents", "'1.50'");
        assertThat(payments.stats().pending()).isZero();
        assertThat(payments.earlyPayments()).isZero();
    }

    @Test
    void paid_withoutAmountCents_gets400NamingIt_andAnswersNoWait() throws Exception {
        CompletableFuture<HttpResponse<String>> wait = get("/orders/order-6/wait?timeoutMs=60000");
        Eventually.await("the wait is pending", () -> payments.stats().pending() == 1);

        assertBadRequest(post("/orders/order-6/paid", ""), "'amountCents' is required");
        assertBadRequest(post("/orders/order-6/paid?currency=EUR", "note=x"), "'amountCents' is required");

        assertThat(wait).isNotDone();
        assertThat(payments.stats().pending()).isEqualTo(1);
        assertThat(payments.earlyPayments()).isZero();
    }

    @Test
    void badValue_veryLong_isEchoedTruncated_andTheMessageSaysSo() throws Exception {
        String id = "x".repeat(99_999) + ";";

        HttpResponse<String> response = done(get("/orders/" + id + "/wait?timeoutMs=10"));
        HttpResponse<String> amount = done(post("/orders/order-7/paid?amountCents=" + "9".repeat(100_000), ""));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("order id", "'" + "x".repeat(HttpApi.MAX_ECHOED_CHARS) + "...'",
                "(100000 characters, truncated to " + HttpApi.MAX_ECHOED_CHARS + ")").hasSizeLessThan(400);
        assertThat(amount.statusCode()).isEqualTo(400);
        assertThat(amount.body()).contains("amountCents", "(100000 characters, truncated").hasSizeLessThan(400);
    }

    @Test
    void wait_afterThePaymentsClosed_gets503() throws Exception {
        payments.close();

        HttpResponse<String> answer = done(get("/orders/order-8/wait?timeoutMs=60000"));

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.body()).contains("SHUTTING_DOWN");
    }

    @Test
    void orders_wrongMethodOrPath_get405Or404() throws Exception {
        assertThat(done(post("/orders/order-5/wait?timeoutMs=10", "")).statusCode()).isEqualTo(405);
        assertThat(done(get("/orders/order-5/paid")).statusCode()).isEqualTo(405);
        assertThat(done(get("/orders/order-5/shipped")).statusCode()).isEqualTo(404);
        assertThat(done(get("/orders/")).statusCode()).isEqualTo(404);
    }

    private CompletableFuture<HttpResponse<String>> get(String pathAndQuery) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> post(String pathAndQuery, String form) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> done(CompletableFuture<HttpResponse<String>> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static void assertBadRequest(CompletableFuture<HttpResponse<String>> request, String... mentions)
            throws Exception {
        HttpResponse<String> response = done(request);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"error\":\"BAD_REQUEST\"").contains(mentions);
    }
}
