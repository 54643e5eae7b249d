package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.KeyedWaits;
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

/** End to end over HTTP on loopback; the test drives replication itself, so every wait is decided by the test. */
class HttpApiTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaManager replicas = ReplicaManager.create(new ReplicaManager.Config(3, 2, 60_000), registry);
    private final OrderPayments payments = new OrderPayments(KeyedWaits.builder("orders"), Duration.ofSeconds(30));
    private final ExecutorService executor = Executors.newFixedThreadPool(4, DaemonThreads.factory("test-http"));
    private final HttpClient client = HttpClient.newBuilder().executor(executor).build();
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws IOException {
        replicas.createTopic("demo", 2);
        DemoStats stats = new DemoStats(registry, replicas,
                List.of(replicas.producePurgatory()::stats, replicas.fetchPurgatory()::stats));
        server = new HttpApi(replicas, payments, registry, stats).start(0, executor);
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        replicas.close();
        payments.close();
        executor.shutdownNow();
    }

    private CompletableFuture<HttpResponse<String>> post(String pathAndQuery) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> get(String pathAndQuery) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> done(CompletableFuture<HttpResponse<String>> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void produce_acksAll_answersOnlyAfterTheFollowersReplicate() throws Exception {
        CompletableFuture<HttpResponse<String>> produce =
                post("/produce?partition=0&payload=hello&acks=all&timeoutMs=60000");
        Eventually.await("produce watched", () -> replicas.producePurgatory().numDelayed() == 1);
        assertThat(produce).isNotDone();
        assertThat(done(get("/api/stats")).body()).contains("{\"name\":\"produce\",\"pending\":1,");
        assertThat(done(get("/metrics")).body()).contains("purgatory_pending_operations{purgatory=\"produce\"} 1.0");

        replicas.replicate(1, 0);
        assertThat(produce).isNotDone();
        replicas.replicate(2, 0);

        HttpResponse<String> response = done(produce);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"error\":\"NONE\"", "\"offset\":0");
        assertThat(done(get("/metrics")).body()).contains("purgatory_pending_operations{purgatory=\"produce\"} 0.0");
    }

    @Test
    void fetch_longPoll_answersWhenCommittedDataArrivesAndNotBefore() throws Exception {
        CompletableFuture<HttpResponse<String>> fetch = get("/fetch?partition=1&offset=0&minBytes=1&maxWaitMs=60000");
        Eventually.await("fetch watched", () -> replicas.fetchPurgatory().numDelayed() == 1);
        assertThat(done(get("/api/stats")).body()).contains("{\"name\":\"fetch\",\"pending\":1,");

        assertThat(done(post("/produce?partition=1&payload=hello&acks=1")).body()).contains("\"error\":\"NONE\"");
        assertThat(fetch).as("appended but not yet replicated: above the high watermark").isNotDone();
        replicas.replicate(1, 0);
        replicas.replicate(2, 0);

        HttpResponse<String> response = done(fetch);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"error\":\"NONE\"", "\"highWatermark\":1",
                "{\"offset\":0,\"value\":\"hello\"}");
    }

    @Test
    void produce_timeoutPasses_answersRequestTimedOut() throws Exception {
        HttpResponse<String> response = done(post("/produce?partition=0&payload=late&timeoutMs=20"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"error\":\"REQUEST_TIMED_OUT\"");
        // onComplete answered; onExpiration, which counts, runs after it on the expiration thread
        Eventually.await("the expiration counted", () -> replicas.produceExpirations() == 1);
    }

    @Test
    void produce_badParameters_get400NamingTheParameter() throws Exception {
        assertBadRequest(post("/produce?partition=abc&payload=x"), "partition", "abc");
        assertBadRequest(post("/produce?partition=0&payload=x&acks=7"), "acks", "7");
        assertBadRequest(post("/produce?partition=0"), "payload");
        assertBadRequest(post("/produce?partition=0&payload=x&timeoutMs=-1"), "timeoutMs", "-1");
        assertBadRequest(post("/produce?partition=-3&payload=x"), "partition", "-3");
        assertThat(replicas.partition(new TopicPartition("demo", 0)).logEndOffset()).isZero();
    }

    @Test
    void fetch_badParameters_get400NamingTheParameter() throws Exception {
        assertBadRequest(get("/fetch?partition=0"), "offset");
        assertBadRequest(get("/fetch?partition=0&offset=0&maxWaitMs=999999"), "maxWaitMs", "999999");
        assertBadRequest(get("/fetch?partition=0&offset=zero"), "offset", "zero");
        assertThat(replicas.fetchPurgatory().numDelayed()).isZero();
    }

    @Test
    void endpoints_wrongMethodOrPath_get405Or404() throws Exception {
        assertThat(done(get("/produce?partition=0&payload=x")).statusCode()).isEqualTo(405);
        assertThat(done(get("/nothing-here")).statusCode()).isEqualTo(404);
    }

    @Test
    void dashboard_isSelfContained() throws Exception {
        HttpResponse<String> page = done(get("/"));

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body()).contains("<canvas", "/api/stats")
                .doesNotContain("src=\"http", "href=\"http", "@import");
    }

    private static void assertBadRequest(CompletableFuture<HttpResponse<String>> request, String... mentions)
            throws Exception {
        HttpResponse<String> response = done(request);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"error\":\"BAD_REQUEST\"").contains(mentions);
    }
}
