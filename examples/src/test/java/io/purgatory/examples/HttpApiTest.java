package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.KeyedWaits;
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

/** End to end over HTTP on loopback; the test drives replication itself, so every wait is decided by the test. */
class HttpApiTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaManager replicas = ReplicaManager.create(new ReplicaManager.Config(3, 2, 60_000), registry);
    private final OrderPayments payments = new OrderPayments(KeyedWaits.builder("orders"), Duration.ofSeconds(30));
    private final ExecutorService executor = Executors.newFixedThreadPool(4, DaemonThreads.factory("test-http"));
    private final HttpClient client = HttpClient.newBuilder().executor(executor).build();
    private HttpServer server;
    private DemoHistory history;
    private String base;

    @BeforeEach
    void start() throws IOException {
        replicas.createTopic("demo", 2);
        DemoStats stats = new DemoStats(registry, replicas,
                List.of(replicas.producePurgatory()::stats, replicas.fetchPurgatory()::stats));
        history = new DemoHistory(stats, 0);
        server = new HttpApi(replicas, payments, registry, stats, history).start(0, executor);
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

    private CompletableFuture<HttpResponse<String>> postForm(String path, String form) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
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
    void produce_payloadOverTheLimit_gets413InTheQueryAndInAFormBody_andTheServerGoesOn() throws Exception {
        assertThat(System.getProperty(HttpApi.MAX_REQUEST_HEADER_PROPERTY)).as("set by surefire, as by the demo's main")
                .isEqualTo(String.valueOf(HttpApi.MAX_REQUEST_HEADER_BYTES));
        String tooLarge = "x".repeat(HttpApi.MAX_PAYLOAD_BYTES + 1);
        String largest = "x".repeat(HttpApi.MAX_PAYLOAD_BYTES);

        assertTooLarge(post("/produce?partition=0&acks=1&payload=" + tooLarge), "payload", "1048577");
        assertTooLarge(postForm("/produce", "partition=0&acks=1&payload=" + tooLarge), "payload", "1048577");
        assertTooLarge(postForm("/produce", "partition=0&acks=1&payload=" + "x".repeat(HttpApi.MAX_BODY_BYTES + 1)),
                "body", String.valueOf(HttpApi.MAX_BODY_BYTES));
        assertTooLarge(postForm("/produce", "partition=0&acks=1&payload=" + "x".repeat(3 * HttpApi.MAX_BODY_BYTES)),
                "body");
        assertThat(replicas.partition(new TopicPartition("demo", 0)).logEndOffset()).isZero();

        HttpResponse<String> atTheLimit = done(postForm("/produce", "partition=0&acks=1&payload=" + largest));
        assertThat(atTheLimit.statusCode()).isEqualTo(200);
        assertThat(atTheLimit.body()).contains("\"error\":\"NONE\"", "\"offset\":0");
    }

    @Test
    void produceAndFetch_unknownPartitionOrTopic_get404NamingIt() throws Exception {
        assertNotFound(post("/produce?partition=7&payload=x&acks=1"), "demo-7");
        assertNotFound(post("/produce?topic=nope&partition=0&payload=x&acks=1"), "nope-0");
        assertNotFound(get("/fetch?partition=7&offset=0&maxWaitMs=60000"), "demo-7");
        assertThat(replicas.fetchPurgatory().numDelayed()).isZero();
    }

    @Test
    void pending_aProduceAndAnOrderWaiting_listsEachPurgatorysOldestWithItsKeys() throws Exception {
        CompletableFuture<HttpResponse<String>> produce =
                post("/produce?partition=0&payload=hello&acks=all&timeoutMs=60000");
        CompletableFuture<HttpResponse<String>> order = get("/orders/order-7/wait?timeoutMs=60000");
        Eventually.await("produce and order waiting", () -> replicas.producePurgatory().numDelayed() == 1
                && payments.stats().pending() == 1);

        String body = done(get("/api/pending?limit=5")).body();

        assertThat(body).startsWith("{\"limit\":5,\"purgatories\":[")
                .containsPattern("\\{\"name\":\"produce\",\"pending\":1,\"oldest\":\\[\\{\"kind\":\"DelayedProduce\","
                        + "\"keys\":\\[\"demo-0\"\\],\"ageMs\":\\d+,\"timeLeftMs\":\\d+,\"position\":1,"
                        + "\"tried\":(true|false)}]}")
                .contains("{\"name\":\"fetch\",\"pending\":0,\"oldest\":[]}")
                .containsPattern("\\{\"name\":\"orders\",\"pending\":1,\"oldest\":\\[\\{\"kind\":\"KeyedWait\","
                        + "\"keys\":\\[\"order-7\"\\],\"ageMs\":\\d+,\"timeLeftMs\":\\d+,");
        assertThat(List.of(produce, order)).as("listing leaves them waiting").noneMatch(CompletableFuture::isDone);
        assertBadRequest(get("/api/pending?limit=0"), "limit", "0");
        assertBadRequest(get("/api/pending?limit=101"), "limit", "101");
    }

    @Test
    void history_afterSamples_servesThemOldestFirst_andAfterASeqOnlyTheNewerOnes() throws Exception {
        assertThat(done(get("/api/history")).body()).startsWith("{\"capacity\":120,\"intervalMs\":1000,"
                + "\"latestSeq\":-1,\"samples\":[]");
        done(post("/produce?partition=0&payload=a&acks=1"));
        for (int second = 1; second <= 3; second++) {
            history.sample(TimeUnit.SECONDS.toNanos(second));
        }

        HttpResponse<String> all = done(get("/api/history"));
        assertThat(all.statusCode()).isEqualTo(200);
        assertThat(all.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(all.body()).contains("\"latestSeq\":2", "{\"seq\":0,\"uptimeMs\":1000,",
                "{\"seq\":1,\"uptimeMs\":2000,", "{\"seq\":2,\"uptimeMs\":3000,", "{\"name\":\"produce\",");
        assertThat(done(get("/api/history?after=1")).body()).contains("{\"seq\":2,")
                .doesNotContain("{\"seq\":1,", "{\"seq\":0,");
        assertBadRequest(get("/api/history?after=x"), "after", "x");
    }

    @Test
    void dashboard_servedAtTheRoot_isSelfContained() throws Exception {
        HttpResponse<String> page = done(get("/"));

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body()).contains("<canvas", "/api/stats", "/api/history")
                .doesNotContain("src=\"http", "href=\"http", "@import");
    }

    private static void assertTooLarge(CompletableFuture<HttpResponse<String>> request, String... mentions)
            throws Exception {
        HttpResponse<String> response = done(request);
        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.body()).contains("\"error\":\"PAYLOAD_TOO_LARGE\"").contains(mentions);
    }

    private static void assertNotFound(CompletableFuture<HttpResponse<String>> request, String partition)
            throws Exception {
        HttpResponse<String> response = done(request);
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).contains("\"error\":\"UNKNOWN_TOPIC_OR_PARTITION\"", partition);
    }

    private static void assertBadRequest(CompletableFuture<HttpResponse<String>> request, String... mentions)
            throws Exception {
        HttpResponse<String> response = done(request);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"error\":\"BAD_REQUEST\"").contains(mentions);
    }
}
