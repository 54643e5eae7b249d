package io.purgatory.apps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.purgatory.testbroker.KafkaBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link FeedApp} as a user runs it, on the Spring Boot line of the module that builds it: its main
 * in a child JVM (a real server on a loopback port), a real broker (a child JVM too), the feeds
 * auto-configured from properties, one of them on a misspelt topic. One start of each: the long
 * poll answered through the feed, the health, the readiness, then a SIGTERM while a long poll waits.
 */
class FeedAppProcessTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60); // generous: no step is meant to take it
    private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");
    private static KafkaBroker broker;
    private static Process app;
    private static final List<String> OUTPUT = new CopyOnWriteArrayList<>();
    private static final CompletableFuture<Integer> PORT = new CompletableFuture<>();
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws IOException {
        broker = KafkaBroker.builder().start();
        broker.createTopic("payments", 1);
        app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), FeedApp.class.getName(), "--server.port=0",
                "--purgatory.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                "--purgatory.kafka.feeds.payments.topic=payments",
                "--purgatory.kafka.feeds.refunds.topic=refnuds") // misspelt: the topic is "refunds"
                .redirectErrorStream(true).redirectInput(Redirect.PIPE).start();
        app.getOutputStream().close();
        Thread reader = new Thread(() -> read(app), "app-output");
        reader.setDaemon(true);
        reader.start();
        CompletableFuture.delayedExecutor(180, TimeUnit.SECONDS).execute(app::destroyForcibly);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.destroyForcibly();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void app_feedsLongPollHealthAndSigterm_asTheStarterPromises() throws Exception {
        String base = "http://127.0.0.1:" + PORT.get(120, TimeUnit.SECONDS);
        assertThat(AppInfoParser.getVersion()).as("kafka-clients: the one this Spring Boot line manages")
                .isEqualTo(System.getProperty("expected.kafka.version"));

        // The feed of the real topic gets ready; the one of the misspelt topic is DOWN, naming it.
        await().atMost(DEADLINE).until(() -> get(base + "/actuator/health/kafkaFeeds/payments").join().body()
                .contains("\"status\":\"UP\""));
        HttpResponse<String> readiness = get(base + "/actuator/health/readiness").join();
        assertThat(readiness.statusCode()).isEqualTo(503);
        assertThat(readiness.body()).contains("\"status\":\"DOWN\"", "\"topic\":\"refnuds\"",
                "\"state\":\"TOPIC_MISSING\"", "topic 'refnuds' does not exist", "\"readinessState\"");
        assertThat(get(base + "/actuator/health/kafkaFeeds/refunds").join().body())
                .contains("\"status\":\"DOWN\"", "\"reason\":\"topic 'refnuds' does not exist\"");
        String health = get(base + "/actuator/health").join().body();
        assertThat(health).contains("\"kafkaFeeds\"", "\"purgatories\"", "\"topic\":\"payments\"",
                "\"state\":\"READY\"");
        assertThat(get(base + "/actuator/health/liveness").join().statusCode()).isEqualTo(200);
        assertThat(get(base + "/actuator/metrics").join().body())
                .contains("\"purgatory.feed.ready\"", "\"purgatory.pending\"");

        // A long poll, answered by a record published to the topic.
        CompletableFuture<HttpResponse<String>> paid = get(base + "/orders/42/payment");
        awaitPending(base, 1);
        publish("42", "12.50 EUR");
        assertThat(paid.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(paid.join().body()).isEqualTo("12.50 EUR");

        // SIGTERM while a long poll waits: answered 503, the feeds closed first, nothing to warn of.
        CompletableFuture<HttpResponse<String>> waiting = get(base + "/orders/43/payment");
        awaitPending(base, 1);
        int beforeSigterm = OUTPUT.size(); // before: the misspelt topic's one WARN, by design
        app.toHandle().destroy(); // SIGTERM
        assertThat(waiting.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
        assertThat(app.waitFor(60, TimeUnit.SECONDS)).as("the JVM exits").isTrue();
        assertThat(app.exitValue()).as("128 + SIGTERM").isEqualTo(143);
        assertThat(OUTPUT.subList(beforeSigterm, OUTPUT.size())).as("the application's output after the SIGTERM")
                .anyMatch(line -> line.contains("503 Service Unavailable"))
                .noneMatch(line -> line.contains(" WARN ") || line.contains(" ERROR ") || line.startsWith("\tat ")
                        || line.startsWith("Exception in thread") || line.startsWith("Caused by"));
        assertThat(OUTPUT).as("the application's output").noneMatch(line -> line.contains(" ERROR "))
                .filteredOn(line -> line.contains(" WARN ")).singleElement().asString()
                .contains("Feed 'refunds': topic refnuds does not exist");
    }

    private void awaitPending(String base, int pending) {
        await().atMost(DEADLINE).until(() -> get(base + "/actuator/purgatories/payments").join().body()
                .contains("\"pending\":" + pending + ","));
    }

    private static void publish(String key, String value) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("payments", key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    private CompletableFuture<HttpResponse<String>> get(String uri) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(uri)).build(), BodyHandlers.ofString())
                .orTimeout(60, TimeUnit.SECONDS);
    }

    /** Keeps every line the application prints, and its port once Tomcat tells it. */
    private static void read(Process process) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                OUTPUT.add(line);
                Matcher started = STARTED.matcher(line);
                if (started.find()) {
                    PORT.complete(Integer.parseInt(started.group(1)));
                }
            }
            PORT.completeExceptionally(new AssertionError("the application ended before its server started: "
                    + String.join("\n", OUTPUT)));
        } catch (IOException e) {
            PORT.completeExceptionally(new UncheckedIOException(e));
        }
    }
}
