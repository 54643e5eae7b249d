package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryStats;
import io.purgatory.spring.PaymentsApp.Payment;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The order-payment long poll on Spring MVC and Tomcat, started on a loopback port and hit by a
 * real HTTP client: answered by an event, by its timeout, by the async request timeout; a client
 * that goes away; the actuator's metrics, Prometheus text and purgatories endpoint.
 */
class MvcLongPollTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20); // generous: no wait here is meant to take it
    private static ConfigurableApplicationContext app;
    private static KeyedWaits<String, Payment> payments;
    private static Http http;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void start() {
        app = PaymentsApp.start(WebApplicationType.SERVLET,
                "--spring.mvc.async.request-timeout=2s", "--purgatory.max-pending=3",
                "--management.endpoint.health.show-details=always",
                "--management.endpoint.health.probes.enabled=true",
                "--management.endpoint.health.probes.add-additional-paths=true",
                "--management.endpoints.web.exposure.include=health,metrics,prometheus,purgatories");
        payments = app.getBean("payments", KeyedWaits.class);
        http = new Http(((WebServerApplicationContext) app).getWebServer().getPort());
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    /** Each test's waits have ended: the next test's {@code pending() == 1} is its own wait. */
    @AfterEach
    void noWaitLeft() {
        await().atMost(DEADLINE).until(() -> payments.pending() == 0);
    }

    @Test
    void wait_paymentPosted_answers200WithThePayment() {
        CompletableFuture<HttpResponse<String>> wait = http.get("/orders/1/wait");
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);

        assertThat(http.post("/orders/1/paid", "{\"amount\":\"12.50 EUR\"}").join().statusCode()).isEqualTo(200);

        assertThat(wait.join().statusCode()).isEqualTo(200);
        assertThat(wait.join().body()).isEqualTo("{\"amount\":\"12.50 EUR\"}");
    }

    @Test
    void wait_itsTimeoutPasses_answers204() {
        long expired = payments.stats().expired();

        assertThat(http.get("/orders/2/wait?timeoutMs=50").join().statusCode()).isEqualTo(204);
        assertThat(payments.stats().expired()).isEqualTo(expired + 1);
    }

    @Test
    void wait_asyncRequestTimesOutFirst_answers503AndTheWaitIsCancelled() {
        PurgatoryStats before = payments.stats();

        // The wait would last 10 minutes; the async request times out after 2 s.
        assertThat(http.get("/orders/3/wait").join().statusCode()).isEqualTo(503);

        await().atMost(DEADLINE).until(() -> payments.stats().cancelled() == before.cancelled() + 1);
        assertThat(payments.stats().expired()).isEqualTo(before.expired());
    }

    /**
     * The async request timeout's 503 is given by {@code sendError}: Tomcat fires the async request's
     * {@code onComplete} twice then, and the starter, counting the request complete each time, would leave
     * {@link AnswersInFlight} one below the requests in flight, for the immediate shutdown to trust.
     */
    @Test
    void wait_asyncRequestTimesOut_countsItsRequestCompleteOnce() {
        AnswersInFlight inFlight = app.getBean(AnswersInFlight.class);
        int before = inFlight.count();

        assertThat(http.get("/orders/7/wait").join().statusCode()).isEqualTo(503);

        await().atMost(DEADLINE).until(() -> inFlight.count() <= before);
        await().pollDelay(Duration.ofMillis(300)).atMost(DEADLINE)
                .untilAsserted(() -> assertThat(inFlight.count() - before).as("requests in flight").isZero());
    }

    /**
     * A wait failed with an exception no handler resolves: Spring MVC lets it out of the async
     * dispatch and Tomcat forwards to Spring Boot's error page, 500. The starter, which ends a
     * waited request's answer within its dispatch, leaves that one alone (ended, it would be an
     * empty 200).
     */
    @Test
    void wait_failedWithAnExceptionNoHandlerResolves_answersTheErrorPage500() {
        CompletableFuture<HttpResponse<String>> wait = http.get("/orders/5/wait-held");
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);

        app.getBean(PaymentsApp.OrderController.class).held.get("5")
                .completeExceptionally(new UnsupportedOperationException("no handler resolves this"));

        assertThat(wait.join().statusCode()).isEqualTo(500);
        assertThat(wait.join().body()).contains("\"status\":500");
    }

    /**
     * Tomcat watches no socket while its request is async, so it finds the client gone when the
     * async request times out (2 s here), not when the client leaves; the wait, of 10 minutes,
     * is cancelled then.
     */
    @Test
    void wait_clientGoesAway_theWaitIsCancelledWhenTomcatFindsOut() throws IOException {
        long cancelled = payments.stats().cancelled();
        Socket client = http.getAndHold("/orders/4/wait");
        try {
            await().atMost(DEADLINE).until(() -> payments.pending() == 1);
        } finally {
            client.close(); // before the answer
        }

        await().atMost(DEADLINE).until(() -> payments.stats().cancelled() == cancelled + 1);
        assertThat(payments.pending()).isZero();
    }

    @Test
    void actuator_metricsEndpoint_showsThePurgatoryMeters() throws IOException {
        JsonNode names = json(http.get("/actuator/metrics").join().body()).get("names");
        assertThat(names.toString()).contains("\"purgatory.pending\"", "\"purgatory.operations\"",
                "\"purgatory.rejected\"", "\"purgatory.expiration.lateness\"");

        JsonNode pending = json(http.get("/actuator/metrics/purgatory.pending?tag=purgatory:payments").join().body());
        assertThat(pending.get("baseUnit").asString()).isEqualTo("operations");
        assertThat(pending.get("measurements").get(0).get("value").asDouble()).isEqualTo(payments.pending());
    }

    @Test
    void actuator_prometheusEndpoint_servesThePurgatorySeries() {
        http.get("/orders/5/wait?timeoutMs=1").join(); // one operation timed, for the histogram's series

        String scrape = http.get("/actuator/prometheus").join().body();

        assertThat(scrape).contains("purgatory_pending_operations{purgatory=\"payments\"}",
                "purgatory_operations_seconds_bucket{outcome=\"expired\",purgatory=\"payments\",le=\"0.001\"}",
                "purgatory_rejected_total{purgatory=\"payments\"}");
    }

    @Test
    void actuator_purgatoriesEndpoint_listsEachPurgatorysStats() throws IOException {
        http.get("/orders/6/wait?timeoutMs=1").join();

        JsonNode body = json(http.get("/actuator/purgatories").join().body());

        JsonNode waits = body.get("purgatories").get("payments");
        assertThat(waits.get("bean").asString()).isEqualTo("payments");
        assertThat(waits.get("type").asString()).isEqualTo("keyed-waits");
        assertThat(waits.get("closed").asBoolean()).isFalse();
        assertThat(waits.get("expired").asLong()).isPositive();
        assertThat(waits.propertyNames()).contains("pending", "watched", "keys", "completed",
                "completedAtOnce", "expired", "cancelled", "callbackErrors", "rejected");
        assertThat(body.get("runtimes").get("purgatoryRuntime").get("name").asString()).isEqualTo("purgatory");

        HttpResponse<String> one = http.get("/actuator/purgatories/payments").join();
        assertThat(json(one.body()).get("type").asString()).isEqualTo("keyed-waits");
        assertThat(http.get("/actuator/purgatories/nothing").join().statusCode()).isEqualTo(404);
    }

    @Test
    void actuator_onePurgatory_listsItsOldestWaitsAndRefusesABadParameterWith400() throws IOException {
        for (String order : List.of("list-1", "list-2", "list-3")) {
            CompletableFuture<Payment> unused = payments.await(order, Duration.ofMinutes(1));
        }
        try {
            HttpResponse<String> answer = http.get("/actuator/purgatories/payments?limit=2&order=oldest").join();

            assertThat(answer.statusCode()).isEqualTo(200);
            JsonNode body = json(answer.body());
            assertThat(body.get("pending").asInt()).isEqualTo(3);
            assertThat(body.get("type").asString()).isEqualTo("keyed-waits");
            JsonNode listed = body.get("pendingOperations");
            assertThat(listed).hasSize(2);
            assertThat(listed.get(0).get("keys").get(0).asString()).isEqualTo("list-1");
            assertThat(listed.get(1).get("keys").get(0).asString()).isEqualTo("list-2");
            assertThat(listed.get(0).get("kind").asString()).isEqualTo("KeyedWait");
            assertThat(listed.get(0).propertyNames()).contains("ageMs", "timeLeftMs", "tried");
            assertThat(body.has("topTenants")).as("no tenants").isFalse();
            assertThat(http.get("/actuator/purgatories/payments?limit=many").join().statusCode()).isEqualTo(400);
            assertThat(http.get("/actuator/purgatories/payments?order=newest").join().statusCode()).isEqualTo(400);
        } finally {
            List.of("list-1", "list-2", "list-3").forEach(order -> payments.complete(order, new Payment("0 EUR")));
        }
    }

    /**
     * A full purgatory answers 429 and takes the instance out of rotation, never restarting it: readiness (and
     * Kubernetes' /readyz) 503, liveness 200. The root aggregates every contributor, as Spring Boot
     * builds it, so it answers 503 too: a liveness probe must read /actuator/health/liveness.
     */
    @Test
    void longPoll_purgatoryFull_answers429AndReadinessIsOutOfServiceWhileLivenessStaysUp() throws IOException {
        assertThat(http.get("/actuator/health/readiness").join().statusCode()).isEqualTo(200);
        List<CompletableFuture<HttpResponse<String>>> waits = IntStream.range(0, 3)
                .mapToObj(i -> http.get("/orders/full-" + i + "/wait")).toList();
        await().atMost(DEADLINE).until(() -> payments.pending() == 3);

        HttpResponse<String> full = http.get("/orders/one-more/wait").join(); // max-pending is 3
        assertThat(full.statusCode()).isEqualTo(429);
        assertThat(full.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(http.get("/orders/one-more/wait-failing").join().statusCode()).as("a failed future: the same")
                .isEqualTo(429);

        HttpResponse<String> readiness = http.get("/actuator/health/readiness").join();
        assertThat(readiness.statusCode()).isEqualTo(503);
        assertThat(json(readiness.body()).get("status").asString()).isEqualTo("OUT_OF_SERVICE");
        HttpResponse<String> root = http.get("/actuator/health").join();
        assertThat(root.statusCode()).isEqualTo(503);
        JsonNode components = json(root.body()).get("components");
        JsonNode purgatory = components.get("purgatories").get("components").get("payments");
        assertThat(purgatory.get("status").asString()).isEqualTo("OUT_OF_SERVICE");
        assertThat(purgatory.get("details").get("rejected").asLong()).isEqualTo(2); // thrown and failed future
        assertThat(components.get("readinessState").get("status").asString()).as("not Boot's own readiness state")
                .isEqualTo("UP");
        assertThat(http.get("/readyz").join().statusCode()).isEqualTo(503);
        HttpResponse<String> liveness = http.get("/actuator/health/liveness").join();
        assertThat(liveness.statusCode()).isEqualTo(200);
        assertThat(json(liveness.body()).get("status").asString()).isEqualTo("UP");
        assertThat(http.get("/livez").join().statusCode()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            http.post("/orders/full-" + i + "/paid", "{\"amount\":\"1 EUR\"}").join();
            assertThat(waits.get(i).join().statusCode()).isEqualTo(200);
        }
    }

    private static JsonNode json(String body) throws IOException {
        return new ObjectMapper().readTree(body);
    }
}
