package io.purgatory.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitTimeoutException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** GET /orders/{id}/wait: 200 with the payment once POST /orders/{id}/paid posts it, 204 after 20 s, 503 on stop. */
public final class LongPollServer {

    private static final Pattern PATH = Pattern.compile("/orders/([^/]+)/(wait|paid)");
    private final KeyedWaits<String, String> payments;

    public LongPollServer(KeyedWaits<String, String> payments) {
        this.payments = payments;
    }

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080), 0);
        KeyedWaits<String, String> payments = KeyedWaits.builder("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000) // a payment just before its wait still answers it
                .build();
        new LongPollServer(payments).serve(server);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(payments, server))); // SIGTERM, Ctrl-C
    }

    /** Stops the waits first, so that each waiting client gets its answer, then the server. */
    public static void stop(KeyedWaits<String, String> payments, HttpServer server) {
        payments.close(); // answers every pending wait now, on this thread: 503
        server.stop(1);   // takes no more connections; gives the answers being written up to 1 s
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the callback is the answer
    public void serve(HttpServer server) {
        server.createContext("/orders/", exchange -> {
            Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
            if (!path.matches()) {
                reply(exchange, 404, "");
            } else if (path.group(2).equals("paid")) {
                String payment = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                reply(exchange, 200, "answered waits: " + payments.complete(path.group(1), payment));
            } else {
                try {
                    payments.await(path.group(1), Duration.ofSeconds(20)) // holds no thread
                            .whenComplete((payment, error) -> reply(exchange, error == null ? 200
                                    : error instanceof WaitTimeoutException t && t.closed() ? 503 : 204, payment));
                } catch (IllegalStateException closed) { // the waits are closed: the server is stopping
                    reply(exchange, 503, "");
                }
            }
        });
    }

    private static void reply(HttpExchange exchange, int status, String body) {
        try (OutputStream out = exchange.getResponseBody()) {
            byte[] bytes = status == 200 ? body.getBytes(StandardCharsets.UTF_8) : new byte[0];
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            out.write(bytes);
        } catch (IOException clientGone) {
            // nobody left to answer
        }
    }
}
