package io.purgatory.apps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The pending list of {@code /actuator/purgatories/{name}} in {@link FeedApp} as a user runs it, on
 * the Spring Boot line of the module that builds it: its main in a child JVM (a real server on a
 * loopback port, no Kafka feed), long polls that wait, and the endpoint read over HTTP: the oldest
 * waits in order, their keys shown or hidden as {@code purgatory.actuator.keys} says. The JSON is
 * read as text: the test compiles on every line, whose Jackson differs.
 */
class PendingListAppProcessTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60); // generous: no step is meant to take it
    private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");
    /** The keys of each listed operation, one key each here. */
    private static final Pattern KEYS = Pattern.compile("\"keys\":\\[\"([^\"]*)\"\\]");
    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void pendingList_limitTwoOldestFirst_listsTheTwoOldestWaitsWithTheirKeys() throws Exception {
        try (App app = App.start()) {
            List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
            for (String order : List.of("order-a", "order-b", "order-c")) { // one after the other: oldest first
                polls.add(get(app.base + "/orders/" + order + "/payment"));
                awaitPending(app.base, polls.size());
            }

            HttpResponse<String> listed = get(app.base + "/actuator/purgatories/payments?limit=2&order=oldest").join();

            assertThat(listed.statusCode()).isEqualTo(200);
            String body = listed.body();
            assertThat(keys(body)).containsExactly("order-a", "order-b");
            assertThat(body).contains("\"pending\":3,", "\"type\":\"keyed-waits\"", "\"kind\":\"KeyedWait\"",
                    "\"ageMs\":", "\"timeLeftMs\":", "\"tried\":false").doesNotContain("\"topTenants\"");
            assertThat(keys(get(app.base + "/actuator/purgatories/payments?limit=1&order=soonest-due").join()
                    .body())).as("one timeout for all: the soonest due is the oldest").containsExactly("order-a");
            assertThat(keys(get(app.base + "/actuator/purgatories/payments").join().body()))
                    .as("no parameters: up to 20, oldest first").containsExactly("order-a", "order-b", "order-c");
            assertThat(get(app.base + "/actuator/purgatories/nothing").join().statusCode()).isEqualTo(404);
            assertThat(get(app.base + "/actuator/purgatories/payments?limit=1001").join().statusCode())
                    .isEqualTo(400);
            assertThat(get(app.base + "/actuator/purgatories/payments?order=newest").join().statusCode())
                    .isEqualTo(400);
            assertThat(polls).as("still waiting").noneMatch(CompletableFuture::isDone);
        }
    }

    @Test
    void pendingList_keysHidden_showsEachKeyAsAStar() throws Exception {
        try (App app = App.start("--purgatory.actuator.keys=hidden")) {
            CompletableFuture<HttpResponse<String>> poll = get(app.base + "/orders/alice@example.com/payment");
            awaitPending(app.base, 1);

            String body = get(app.base + "/actuator/purgatories/payments?limit=2&order=oldest").join().body();

            assertThat(keys(body)).containsExactly("*");
            assertThat(body).doesNotContain("alice");
            assertThat(poll).isNotDone();
        }
    }

    private static List<String> keys(String body) {
        List<String> keys = new ArrayList<>();
        Matcher key = KEYS.matcher(body);
        while (key.find()) {
            keys.add(key.group(1));
        }
        return keys;
    }

    private void awaitPending(String base, int pending) {
        await().atMost(DEADLINE).until(() -> get(base + "/actuator/purgatories/payments").join().body()
                .contains("\"pending\":" + pending + ","));
    }

    private CompletableFuture<HttpResponse<String>> get(String uri) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(uri)).build(), BodyHandlers.ofString())
                .orTimeout(60, TimeUnit.SECONDS);
    }

    /** FeedApp's main in a child JVM, with no Kafka feed; its base address once Tomcat has started. */
    private static final class App implements AutoCloseable {
        private final Process process;
        private final List<String> output = new CopyOnWriteArrayList<>();
        private final CompletableFuture<Integer> port = new CompletableFuture<>();
        private String base;

        private App(Process process) {
            this.process = process;
        }

        static App start(String... args) throws Exception {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-cp", System.getProperty("java.class.path"), FeedApp.class.getName(),
                    "--server.port=0"));
            command.addAll(List.of(args));
            App app = new App(new ProcessBuilder(command).redirectErrorStream(true).redirectInput(Redirect.PIPE)
                    .start());
            app.process.getOutputStream().close();
            Thread reader = new Thread(app::read, "app-output");
            reader.setDaemon(true);
            reader.start();
            CompletableFuture.delayedExecutor(180, TimeUnit.SECONDS).execute(app.process::destroyForcibly);
            try {
                app.base = "http://127.0.0.1:" + app.port.get(120, TimeUnit.SECONDS);
            } catch (Exception e) {
                app.close();
                throw e;
            }
            return app;
        }

        /** Keeps every line the application prints, and its port once Tomcat tells it. */
        private void read() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    output.add(line);
                    Matcher started = STARTED.matcher(line);
                    if (started.find()) {
                        port.complete(Integer.parseInt(started.group(1)));
                    }
                }
                port.completeExceptionally(new AssertionError("the application ended before its server started: "
                        + String.join("\n", output)));
            } catch (IOException e) {
                port.completeExceptionally(new UncheckedIOException(e));
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(60, TimeUnit.SECONDS);
        }
    }
}
