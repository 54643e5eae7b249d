package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.purgatory.KeyedWaits;
import io.purgatory.spring.PaymentsApp.Payment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.filter.ShallowEtagHeaderFilter;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.handler.MappedInterceptor;

/**
 * The starter's end of a waited request's answer within its async dispatch ({@code purgatoryEndAnswer}), met by
 * what else an application puts on that answer's way: its filters, its interceptors, its exception handling, and
 * the connection the answer goes out on. A wait that is already done when returned is not marked, so its
 * request, async too, shows what the same application answers without the end.
 */
class MvcAnswerEndTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final String PAID = "{\"amount\":\"7 EUR\"}";
    private static ConfigurableApplicationContext app;
    private static KeyedWaits<String, Payment> payments;
    private static AnswersInFlight inFlight;
    private static EndController controller;
    private static Http http;
    private static int port;
    /** Requests in flight as the test begins: a test that counts one complete twice does not fail the next. */
    private static int before;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void start() {
        app = PaymentsApp.start(WebApplicationType.SERVLET, List.of(Extras.class));
        payments = app.getBean("payments", KeyedWaits.class);
        inFlight = app.getBean(AnswersInFlight.class);
        controller = app.getBean(EndController.class);
        port = ((WebServerApplicationContext) app).getWebServer().getPort();
        http = new Http(port);
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @BeforeEach
    void countFromHere() {
        before = inFlight.count();
    }

    /** Each test's waits have ended; a failed test's wait is cancelled, so that its request ends too. */
    @AfterEach
    void noWaitLeft() {
        try {
            await().atMost(DEADLINE).until(() -> payments.pending() == 0);
        } finally {
            controller.held.values().forEach(wait -> wait.cancel(false));
            controller.held.clear();
        }
    }

    private static String state() {
        return (inFlight.count() - before) + " in flight, " + payments.pending() + " pending";
    }

    private static void awaitHeld(String id) {
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(state() + ", held " + controller.held.keySet())
                .isEqualTo("1 in flight, 1 pending, held [" + id + "]"));
    }

    /** Control: the same async answer, of a wait done when returned (not ended), gets the interceptor's header. */
    @Test
    void doneWait_appsMappedInterceptorSetsAHeaderInAfterCompletion_theClientGetsIt() {
        HttpResponse<String> answer = http.get("/end/intercepted/i0/done").join();

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("X-After")).hasValue("mapped");
    }

    /**
     * An application's {@code MappedInterceptor} bean comes before the starter's in each handler mapping (beans in
     * their registration order, the application's first), so its {@code afterCompletion} runs after the end: the
     * header it sets there, which the client gets on any other answer, is lost on a waited one.
     */
    @Test
    void wait_appsMappedInterceptorSetsAHeaderInAfterCompletion_theClientGetsIt() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/intercepted/i1", "i1");

        payments.complete("i1", new Payment("7 EUR"));

        assertThat(answer.join().statusCode()).isEqualTo(200);
        assertThat(answer.join().body()).isEqualTo(PAID);
        assertThat(answer.join().headers().firstValue("X-After")).hasValue("mapped");
    }

    /** An interceptor added through {@code WebMvcConfigurer} runs its {@code afterCompletion} before the end. */
    @Test
    void wait_appsRegisteredInterceptorSetsAHeaderInAfterCompletion_theClientGetsIt() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/registered/r1", "r1");

        payments.complete("r1", new Payment("7 EUR"));

        assertThat(answer.join().statusCode()).isEqualTo(200);
        assertThat(answer.join().body()).isEqualTo(PAID);
        assertThat(answer.join().headers().firstValue("X-After")).hasValue("registered");
    }

    /** Control: a filter's header set after the chain, on the async answer of a done wait. */
    @Test
    void doneWait_filterSetsAHeaderAfterTheChain_theClientGetsIt() {
        HttpResponse<String> answer = http.get("/end/filtered/f0/done").join();

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("X-Filtered")).hasValue("after");
    }

    /**
     * A servlet filter that sets a header after {@code chain.doFilter} (a timing header, a correlation id) finds a
     * waited answer ended: the client does not get the header it gets on every other answer. (Documented.)
     */
    @Test
    void wait_filterSetsAHeaderAfterTheChain_theClientGetsIt() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/filtered/f1", "f1");

        payments.complete("f1", new Payment("7 EUR"));

        assertThat(answer.join().statusCode()).isEqualTo(200);
        assertThat(answer.join().headers().firstValue("X-Filtered")).hasValue("after");
    }

    /** A failure resolved by {@code sendError}: the status, and Spring Boot's error body from the error dispatch. */
    @Test
    void wait_failedWithResponseStatusException_answersItsStatusWithBootsErrorBody() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/plain/s1", "s1");

        controller.held.get("s1").completeExceptionally(new ResponseStatusException(HttpStatus.CONFLICT, "taken"));

        assertThat(answer.join().statusCode()).isEqualTo(409);
        assertThat(answer.join().body()).contains("\"status\":409", "\"path\":\"/end/plain/s1\"");
    }

    @Test
    void wait_failedWithAResponseStatusAnnotatedException_answersItsStatusWithBootsErrorBody() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/plain/s2", "s2");

        controller.held.get("s2").completeExceptionally(new Gone());

        assertThat(answer.join().statusCode()).isEqualTo(410);
        assertThat(answer.join().body()).contains("\"status\":410", "\"path\":\"/end/plain/s2\"");
    }

    /**
     * A failure resolved by {@code sendError} (so also the async request timeout's 503): Tomcat 11 fires the
     * async request's {@code onComplete} twice (once at the end of the async dispatch in error, once as it
     * post-processes it), and Spring MVC runs the {@code DeferredResult}'s {@code afterCompletion} each time. The
     * starter counts the request complete each time: {@link AnswersInFlight} goes below the requests really in
     * flight, by one for each such answer, and an immediate shutdown stops waiting for answers still to be given.
     */
    @Test
    void wait_failedWithResponseStatusException_countsItsRequestCompleteOnce() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/plain/c1", "c1");

        controller.held.get("c1").completeExceptionally(new ResponseStatusException(HttpStatus.CONFLICT, "taken"));

        assertThat(answer.join().statusCode()).isEqualTo(409);
        await().atMost(DEADLINE).until(() -> inFlight.count() <= before);
        await().pollDelay(Duration.ofMillis(300)).atMost(DEADLINE)
                .untilAsserted(() -> assertThat(inFlight.count() - before).as("requests in flight").isZero());
    }

    /** The same, for a browser: Boot's whitelabel page, written with the response's writer. */
    @Test
    void wait_failedWithResponseStatusExceptionForABrowser_answersBootsErrorPage() {
        CompletableFuture<HttpResponse<String>> answer = send(HttpRequest.newBuilder(uri("/end/plain/s3"))
                .header("Accept", "text/html").GET().build());
        awaitHeld("s3");

        controller.held.get("s3").completeExceptionally(new ResponseStatusException(HttpStatus.CONFLICT, "taken"));

        assertThat(answer.join().statusCode()).isEqualTo(409);
        assertThat(answer.join().body()).contains("Whitelabel Error Page", "status=409");
    }

    /** The application's {@code @ExceptionHandler} that writes its own body with the response's writer. */
    @Test
    void wait_failedWithAnExceptionTheAppsHandlerWritesWithTheWriter_answersThatBody() {
        CompletableFuture<HttpResponse<String>> answer = waitFor("/end/plain/w1", "w1");

        controller.held.get("w1").completeExceptionally(new Refused("no"));

        assertThat(answer.join().statusCode()).isEqualTo(418);
        assertThat(answer.join().body()).isEqualTo("refused: no");
    }

    /** {@code ShallowEtagHeaderFilter} buffers the body: the ETag is set, and a matching If-None-Match gets 304. */
    @Test
    void wait_behindShallowEtagHeaderFilter_answersAnETagAnd304ToAMatchingIfNoneMatch() {
        CompletableFuture<HttpResponse<String>> first = waitFor("/end/etag/e1", "e1");
        payments.complete("e1", new Payment("7 EUR"));
        assertThat(first.join().statusCode()).isEqualTo(200);
        assertThat(first.join().body()).isEqualTo(PAID);
        String etag = first.join().headers().firstValue("ETag").orElseThrow();
        await().atMost(DEADLINE).until(() -> inFlight.count() == before);
        controller.held.clear();

        CompletableFuture<HttpResponse<String>> second = send(HttpRequest.newBuilder(uri("/end/etag/e2"))
                .header("If-None-Match", etag).GET().build());
        awaitHeld("e2");
        payments.complete("e2", new Payment("7 EUR"));

        assertThat(second.join().statusCode()).isEqualTo(304);
        assertThat(second.join().body()).isEmpty();
    }

    /** Ended answers on one kept-alive connection: each is whole, and the connection serves the next request. */
    @Test
    void wait_severalOnOneKeptAliveConnection_eachAnswerIsWholeAndTheConnectionStaysOpen() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout((int) DEADLINE.toMillis());
            for (String id : List.of("k1", "k2", "k3")) {
                write(socket, "GET /end/plain/" + id + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                awaitHeld(id);
                payments.complete(id, new Payment("7 EUR"));

                String answer = readAnswer(socket.getInputStream());
                assertThat(answer).startsWith("HTTP/1.1 200").endsWith("\r\n\r\n" + PAID);
                await().atMost(DEADLINE).until(() -> inFlight.count() == before);
                controller.held.clear();
            }
        }
    }

    /** HTTP/1.0 without keep-alive: the answer is whole, with its length, and then the server closes. */
    @Test
    void wait_http10WithoutKeepAlive_answersWholeAndTheServerCloses() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout((int) DEADLINE.toMillis());
            write(socket, "GET /end/plain/h1 HTTP/1.0\r\n\r\n");
            awaitHeld("h1");
            payments.complete("h1", new Payment("7 EUR"));

            InputStream in = socket.getInputStream();
            String answer = readAnswer(in);
            assertThat(answer).startsWith("HTTP/1.1 200").contains("Content-Length: " + PAID.length())
                    .endsWith("\r\n\r\n" + PAID);
            assertThat(in.read()).as("closed after the answer").isEqualTo(-1);
        }
    }

    /**
     * A client that went away (its connection reset) before its answer: the answer cannot be given, and that is
     * routine for a long poll. Tomcat, ending the response itself, ignores the failed write; ended within the
     * dispatch, the write fails in the starter's {@code afterCompletion}, which Spring MVC logs at ERROR with
     * its stack trace, once for each such client.
     */
    @Test
    void wait_clientResetsTheConnectionBeforeTheAnswer_nothingIsLoggedAtError() throws Exception {
        Logger chain = (Logger) LoggerFactory.getLogger(HandlerExecutionChain.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        chain.addAppender(logged);
        chain.setAdditive(false); // off the console
        try {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                write(socket, "GET /end/plain/g1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                awaitHeld("g1");
                socket.setSoLinger(true, 0); // the close resets the connection
            }
            Thread.sleep(200); // the reset reaches the server's socket

            payments.complete("g1", new Payment("7 EUR"));

            await().atMost(DEADLINE).until(() -> inFlight.count() <= before);
            await().pollDelay(Duration.ofMillis(300)).atMost(DEADLINE).until(() -> true);
            assertThat(logged.list).extracting(event -> event.getLevel() + " " + event.getFormattedMessage()
                    + " " + (event.getThrowableProxy() == null ? "" : event.getThrowableProxy().getClassName()))
                    .isEmpty();
        } finally {
            chain.detachAppender(logged);
            chain.setAdditive(true);
        }
    }

    private static CompletableFuture<HttpResponse<String>> waitFor(String path, String id) {
        CompletableFuture<HttpResponse<String>> answer = http.get(path);
        awaitHeld(id);
        return answer;
    }

    private static CompletableFuture<HttpResponse<String>> send(HttpRequest request) {
        return HttpClient.newHttpClient().sendAsync(request, BodyHandlers.ofString()).orTimeout(30, TimeUnit.SECONDS);
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static void write(Socket socket, String request) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Reads one answer with a Content-Length: its head and its body. */
    private static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed in the head: " + head.toString(StandardCharsets.US_ASCII));
            }
            head.write(b);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        int length = text.lines().filter(line -> line.regionMatches(true, 0, "Content-Length:", 0, 15))
                .mapToInt(line -> Integer.parseInt(line.substring(15).trim())).findFirst()
                .orElseThrow(() -> new IOException("no Content-Length: " + text));
        return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    /** Failed into Spring Boot's error page by {@code ResponseStatusExceptionResolver}'s {@code sendError}. */
    @ResponseStatus(HttpStatus.GONE)
    static final class Gone extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    /** Answered by the application's own {@code @ExceptionHandler}. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** Waits kept by id, so that a test can fail them; {@code /done}: a wait completed before it is returned. */
    @RestController
    static class EndController {
        final Map<String, CompletableFuture<Payment>> held = new ConcurrentHashMap<>();
        private final KeyedWaits<String, Payment> payments;

        EndController(KeyedWaits<String, Payment> payments) {
            this.payments = payments;
        }

        @GetMapping("/end/{kind}/{id}")
        CompletableFuture<Payment> await(@PathVariable String kind, @PathVariable String id) {
            return held.computeIfAbsent(id, key -> payments.await(key, Duration.ofMinutes(10)));
        }

        @GetMapping("/end/{kind}/{id}/done")
        CompletableFuture<Payment> done(@PathVariable String kind, @PathVariable String id) {
            CompletableFuture<Payment> wait = payments.await(id, Duration.ofMinutes(10));
            payments.complete(id, new Payment("7 EUR"));
            assertThat(wait).isDone();
            return wait;
        }
    }

    @RestControllerAdvice
    static class RefusedAdvice {
        @ExceptionHandler
        void refused(Refused refused, HttpServletResponse response) throws IOException {
            response.setStatus(418);
            response.setContentType("text/plain");
            response.getWriter().write("refused: " + refused.getMessage());
        }
    }

    /** What the application adds: filters, interceptors, a controller and its advice. */
    @Configuration(proxyBeanMethods = false)
    @Import({EndController.class, RefusedAdvice.class})
    static class Extras implements WebMvcConfigurer {

        @Override
        public void addInterceptors(InterceptorRegistry registry) {
            registry.addInterceptor(new HeaderAfterCompletion("registered")).addPathPatterns("/end/registered/**");
        }

        @Bean
        MappedInterceptor appsMappedInterceptor() {
            return new MappedInterceptor(new String[] {"/end/intercepted/**"}, new HeaderAfterCompletion("mapped"));
        }

        @Bean
        FilterRegistrationBean<Filter> headerAfterChain() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                chain.doFilter(request, response);
                if (!request.isAsyncStarted()) {
                    ((HttpServletResponse) response).setHeader("X-Filtered", "after");
                }
            });
            registration.addUrlPatterns("/end/filtered/*");
            registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
            return registration;
        }

        @Bean
        FilterRegistrationBean<ShallowEtagHeaderFilter> etag() {
            FilterRegistrationBean<ShallowEtagHeaderFilter> registration =
                    new FilterRegistrationBean<>(new ShallowEtagHeaderFilter());
            registration.addUrlPatterns("/end/etag/*");
            return registration;
        }
    }

    /** Sets {@code X-After} in {@code afterCompletion}, as a timing or tracing interceptor would. */
    private record HeaderAfterCompletion(String value) implements HandlerInterceptor {
        @Override
        public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
                                    Exception ex) {
            response.setHeader("X-After", value);
        }
    }
}
