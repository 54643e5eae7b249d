package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryRuntime;
import io.purgatory.WaitTimeoutException;
import io.purgatory.spring.PaymentsApp.Payment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpStatus;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.DeferredResultProcessingInterceptor;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

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
     * requests: by the time the server stops, no answer is in flight, and each has been sent.
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
        for (CompletableFuture<HttpResponse<String>> poll : polls) {
            assertThat(poll.join().statusCode()).isEqualTo(503);
        }
    }

    /**
     * An answer given by {@code sendError} (a wait failed with a {@code ResponseStatusException} here; the async
     * request timeout's 503 the same) is counted complete twice (Tomcat fires its {@code onComplete} twice), so the
     * requests in flight are counted one short: with one request waiting, none is counted, and the immediate
     * shutdown, having closed the waits, lets the server stop before that request has its answer.
     */
    @Test
    void immediateShutdown_afterAnAnswerGivenBySendError_completesTheWaitingRequestBeforeTheServerStops() {
        ConfigurableApplicationContext app = PaymentsApp.start(WebApplicationType.SERVLET,
                List.of(DispatchRecorder.class), "--server.shutdown=immediate");
        KeyedWaits<String, Payment> payments = payments(app);
        Http http = new Http(port(app));
        CompletableFuture<HttpResponse<String>> refused = http.get("/orders/r/wait-held");
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);
        app.getBean(PaymentsApp.OrderController.class).held.get("r")
                .completeExceptionally(new ResponseStatusException(HttpStatus.CONFLICT));
        assertThat(refused.join().statusCode()).isEqualTo(409);
        CompletableFuture<HttpResponse<String>> poll = http.get("/orders/1/wait");
        await().atMost(DEADLINE).until(() -> payments.pending() == 1);
        DispatchRecorder recorder = app.getBean(DispatchRecorder.class);

        app.close();

        assertThat(recorder.seen).isEqualTo("1 answers dispatched");
        assertThat(poll.join().statusCode()).isEqualTo(503);
    }

    /** Counts the answers of /orders/{id}/wait dispatched, and records the count just before the server stops. */
    static class DispatchRecorder implements SmartLifecycle, WebMvcConfigurer {
        private final AtomicInteger dispatched = new AtomicInteger();
        private volatile boolean running;
        private volatile String seen = "not stopped";

        @Override
        public void addInterceptors(InterceptorRegistry registry) {
            registry.addInterceptor(new HandlerInterceptor() {
                @Override
                public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
                                            Exception ex) {
                    if (request.getDispatcherType() == DispatcherType.ASYNC) {
                        dispatched.incrementAndGet();
                    }
                }
            }).addPathPatterns("/orders/*/wait");
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            seen = dispatched.get() + " answers dispatched";
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

    /**
     * Tomcat counts an async request complete (for its graceful shutdown, and by the requests'
     * {@code afterCompletion}, which the shutdown waits on) before it writes a response still in its
     * buffer; a server stopped in between closed the connection with the answer unsent (a client's
     * GET, retried, found the server refusing). The starter ends the answer within its dispatch, so
     * here, with the request's completion held until its client has the answer, the client has it.
     */
    @Test
    void answer_whileItsRequestsCompletionIsHeld_reachesTheClient() {
        HttpResponse<String> answer = answerWhileItsCompletionIsHeld("/orders/1/wait",
                app -> payments(app).complete("1", new Payment("9.99")));

        assertThat(answer.body()).contains("9.99");
    }

    /** The same with an answer given by {@code sendError} (Spring Boot's error page, on the error dispatch). */
    @Test
    void answerBySendError_whileItsRequestsCompletionIsHeld_reachesTheClient() {
        HttpResponse<String> answer = answerWhileItsCompletionIsHeld("/orders/2/wait-held",
                app -> app.getBean(PaymentsApp.OrderController.class).held.get("2")
                        .completeExceptionally(new ResponseStatusException(HttpStatus.CONFLICT, "paid twice")));

        assertThat(answer.statusCode()).isEqualTo(409);
        assertThat(answer.body()).contains("\"status\":409");
    }

    /**
     * GETs {@code path} (a wait) on an application whose requests' completion is held until their
     * client has the answer, answers the wait with {@code answer}, and returns what the client got,
     * having checked that it got it while the completion was held.
     */
    private static HttpResponse<String> answerWhileItsCompletionIsHeld(
            String path, Consumer<ConfigurableApplicationContext> answer) {
        try (ConfigurableApplicationContext app = PaymentsApp.start(WebApplicationType.SERVLET,
                List.of(CompletionHold.class))) {
            CompletionHold hold = app.getBean(CompletionHold.class);
            CompletableFuture<HttpResponse<String>> poll = new Http(port(app)).get(path)
                    .whenComplete((response, error) -> hold.answered.countDown());
            await().atMost(DEADLINE).until(() -> payments(app).pending() == 1);

            answer.accept(app);

            HttpResponse<String> got = poll.join();
            await().atMost(DEADLINE).until(() -> hold.seen != null);
            assertThat(hold.seen).isEqualTo("answered while the completion was held");
            return got;
        }
    }

    /** Holds each waiting request's completion (at most 5 s) until its client has the answer. */
    static class CompletionHold implements WebMvcConfigurer {
        private final CountDownLatch answered = new CountDownLatch(1);
        private volatile String seen;

        @Override
        public void addInterceptors(InterceptorRegistry registry) {
            registry.addInterceptor(new HandlerInterceptor() {
                @Override
                public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
                    if (request.getDispatcherType() == DispatcherType.REQUEST) {
                        WebAsyncUtils.getAsyncManager(request).registerDeferredResultInterceptor(CompletionHold.class,
                                new DeferredResultProcessingInterceptor() {
                                    @Override
                                    public <T> void afterCompletion(NativeWebRequest webRequest,
                                                                    DeferredResult<T> result) throws Exception {
                                        seen = answered.await(5, TimeUnit.SECONDS)
                                                ? "answered while the completion was held"
                                                : "not answered in the 5 s the completion was held";
                                    }
                                });
                    }
                    return true;
                }
            });
        }
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
