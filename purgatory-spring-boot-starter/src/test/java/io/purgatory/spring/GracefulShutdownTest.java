package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.WaitTimeoutException;
import io.purgatory.spring.PaymentsApp.Payment;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Shutdown with long polls pending: each client gets its answer (503, the waits closed), none a
 * reset or a hang. With graceful shutdown the server has stopped taking requests when the waits
 * are closed, and its wait for the requests in progress ends as soon as they are answered: the
 * clients give up after 30 s, so a shutdown that waited for its own 60 s timeout would fail here.
 */
class GracefulShutdownTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = {"SERVLET", "REACTIVE"})
    void gracefulShutdown_withWaitsPending_answersEachClient503(WebApplicationType type) {
        ConfigurableApplicationContext app = PaymentsApp.start(type, "--server.shutdown=graceful",
                "--spring.lifecycle.timeout-per-shutdown-phase=60s");
        KeyedWaits<String, Payment> payments = payments(app);
        PurgatoryRuntime runtime = app.getBean(PurgatoryRuntime.class);
        Http http = new Http(port(app));
        List<CompletableFuture<HttpResponse<String>>> polls = IntStream.range(0, 3)
                .mapToObj(i -> http.get("/orders/" + i + "/wait")).toList(); // 10-minute waits
        await().atMost(DEADLINE).until(() -> payments.pending() == 3);

        CompletableFuture<Void> closed = CompletableFuture.runAsync(app::close);

        for (CompletableFuture<HttpResponse<String>> poll : polls) {
            assertThat(poll.join().statusCode()).isEqualTo(503);
        }
        closed.orTimeout(30, TimeUnit.SECONDS).join();
        assertThat(payments.isClosed()).isTrue();
        assertThat(payments.stats().expired()).isEqualTo(3); // close policy expire: WaitTimeoutException.closed()
        assertThat(runtime.isClosed()).isTrue();
    }

    /**
     * The order, seen from a wait's callback as the waits close: Tomcat's connector no longer
     * takes connections, and the context's beans are still there.
     */
    @Test
    void close_gracefulShutdown_closesTheWaitsAfterTheServerStoppedTakingRequests() {
        ConfigurableApplicationContext app =
                PaymentsApp.start(WebApplicationType.SERVLET, "--server.shutdown=graceful");
        KeyedWaits<String, Payment> payments = payments(app);
        int port = port(app);
        assertThat(app.getBean(PurgatoryShutdown.GRACEFUL_SHUTDOWN_BEAN, SmartLifecycle.class))
                .as("Spring Boot's graceful shutdown, found by its bean name, in the starter's phase")
                .isInstanceOf(WebServerGracefulShutdownLifecycle.class)
                .extracting(SmartLifecycle::getPhase).isEqualTo(PurgatoryShutdown.PHASE);
        CompletableFuture<String> seen = payments.await("probe", Duration.ofMinutes(10)).handle((payment, error) ->
                (error instanceof WaitTimeoutException closed && closed.closed() ? "closed" : "not closed: " + error)
                        + ", server " + (accepts(port) ? "accepting" : "refusing")
                        + ", context " + (app.isActive() ? "active" : "inactive"));

        app.close();

        assertThat(seen).isCompletedWithValue("closed, server refusing, context active");
    }

    /**
     * Without graceful shutdown the web server stops without waiting for the requests in progress,
     * so the shutdown waits, once it has closed the waits, until Spring MVC has completed their
     * requests: by the time the server stops, no answer is in flight. (Tomcat may still cut off an
     * answer it is flushing at that instant: graceful shutdown is the one that answers every client.)
     */
    @Test
    void immediateShutdown_withWaitsPending_completesTheirRequestsBeforeTheServerStops() {
        ConfigurableApplicationContext app = PaymentsApp.start(WebApplicationType.SERVLET,
                List.of(ServerStopRecorder.class), "--server.shutdown=immediate");
        KeyedWaits<String, Payment> payments = payments(app);
        Http http = new Http(port(app));
        List<CompletableFuture<HttpResponse<String>>> polls = IntStream.range(0, 3)
                .mapToObj(i -> http.get("/orders/" + i + "/wait")).toList();
        ServerStopRecorder recorder = app.getBean(ServerStopRecorder.class);
        await().atMost(DEADLINE).until(() -> payments.pending() == 3 && recorder.inFlight.count() == 3);

        app.close();

        assertThat(recorder.seen).isEqualTo("waits closed, 0 answers in flight");
        assertThat(payments.stats().expired()).isEqualTo(3);
        polls.forEach(poll -> poll.handle((response, error) -> null).join()); // answered or cut off, not hanging
    }

    /** Stops just before the web server (a phase above its), and records what it sees then. */
    static class ServerStopRecorder implements SmartLifecycle {
        private final AnswersInFlight inFlight;
        private final KeyedWaits<?, ?> payments;
        private volatile boolean running;
        private volatile String seen = "not stopped";

        ServerStopRecorder(AnswersInFlight inFlight, KeyedWaits<?, ?> payments) {
            this.inFlight = inFlight;
            this.payments = payments;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            seen = (payments.isClosed() ? "waits closed, " : "waits open, ") + inFlight.count() + " answers in flight";
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return PurgatoryShutdown.PHASE - 1024 + 1; // the server stops at - 1024
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return socket.isConnected();
        } catch (IOException refused) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private static KeyedWaits<String, Payment> payments(ConfigurableApplicationContext app) {
        return app.getBean("payments", KeyedWaits.class);
    }

    private static int port(ConfigurableApplicationContext app) {
        return ((WebServerApplicationContext) app).getWebServer().getPort();
    }
}
